import HTTP

#if canImport(Glibc)
    import Glibc
#endif

extension CardDAVError {
    /// The error for a response whose status says the request failed. `body` is the start of the response body,
    /// read only to find the reason (a `DAV:error` precondition, Google's quota JSON); it never goes in the message.
    static func from(
        status: Int, method: String, url: String, retryAfter: String?, body: ArraySlice<UInt8>, now: Int = time(nil)
    ) -> CardDAVError {
        let kind = kind(status: status, retryAfter: retryAfter, body: body, now: now)
        var message = "\(method) \(DAVURL.path(of: url)): \(status) \(reasonPhrase(status))"
        switch kind {
        case .invalidSyncToken: message += " (the sync token is no longer valid)"
        case .rateLimited(let seconds?): message += " (retry after \(seconds) s)"
        case .rateLimited where status == 403: message += " (quota exceeded)"
        default: break
        }
        return CardDAVError(kind, message)
    }

    static func kind(status: Int, retryAfter: String?, body: ArraySlice<UInt8>, now: Int) -> Kind {
        // RFC 6578 3.2: servers differ in the status (403, 409, 412); the precondition element is what counts.
        if (400..<500).contains(status), containsSyncTokenPrecondition(body) {
            return .invalidSyncToken
        }
        switch status {
        case 401: return .unauthorized
        case 403 where isQuotaJSON(body): return .rateLimited(retryAfter: retryAfter.flatMap { seconds($0, now: now) })
        case 403: return .unauthorized
        case 404, 410: return .notFound
        case 412: return .preconditionFailed
        // 423: a server that locks the collection while it commits a write (Xandikos commits each to git).
        case 423, 429, 503: return .rateLimited(retryAfter: retryAfter.flatMap { seconds($0, now: now) })
        case 400..<500: return .rejected(status: status)
        default: return .serverError(status: status)
        }
    }

    private static func containsSyncTokenPrecondition(_ body: ArraySlice<UInt8>) -> Bool {
        var found = false
        let parser = MultistatusParser { _ in }
        do {
            try parser.feed(Array(body))
            try parser.finish()
            found = parser.summary.hasInvalidSyncToken
        } catch {
            // Not XML, or cut off: fall back to the element's name in the text.
            found =
                parser.summary.hasInvalidSyncToken || String(decoding: body, as: UTF8.self).contains("valid-sync-token")
        }
        return found
    }

    /// Google reports quota as `403` with a JSON error body whose reason mentions the quota.
    private static func isQuotaJSON(_ body: ArraySlice<UInt8>) -> Bool {
        guard let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{")
        else { return false }
        return String(decoding: body, as: UTF8.self).lowercased().contains("quota")
    }

    /// RFC 9110 10.2.3: `Retry-After` is delay-seconds or an HTTP-date; returns seconds from `now`, at least 0.
    static func seconds(_ retryAfter: String, now: Int) -> Int? {
        let value = retryAfter.trimmingSpaces
        if let seconds = Int(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date - now)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 423: "Locked"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 507: "Insufficient Storage"
        default: ""
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

import HTTP
import SystemSupport

extension CardDAVError {
    /// The error for a response whose status says the request failed. `body` is the start of the response body,
    /// read only to find the reason (a `DAV:error` precondition, Google's quota JSON); it never goes in the message.
    static func from(
        status: Int, method: String, url: String, retryAfter: String?, body: ArraySlice<UInt8>,
        now: Int = Int(wallClockSeconds())
    ) -> CardDAVError {
        let kind = kind(status: status, retryAfter: retryAfter, body: body, now: now)
        var message = "\(method) \(DAVURL.path(of: url)): \(status) \(reasonPhrase(status))"
        if let reason = serverReason(body) { message += " (\(reason))" }
        switch kind {
        case .invalidSyncToken: message += " (the sync token is no longer valid)"
        case .rateLimited(let wait?), .locked(let wait?): message += " (retry after \(wait.components.seconds) s)"
        case .rateLimited where status == 403: message += " (quota exceeded)"
        default: break
        }
        var error = CardDAVError(kind, message)
        error.responseStatus = status
        return error
    }

    static func kind(status: Int, retryAfter: String?, body: ArraySlice<UInt8>, now: Int) -> Kind {
        // RFC 6578 3.2: servers differ in the status (403, 409, 412); the precondition element is what counts.
        if (400..<500).contains(status), containsSyncTokenPrecondition(body) {
            return .invalidSyncToken
        }
        // RFC 6352 6.3.2.1 and 5.3.2.1: a CardDAV precondition (a card the server finds invalid, a UID it holds
        // elsewhere, a size over its limit) refuses this card, whatever the status (Xandikos says 412).
        if (400..<500).contains(status), containsCardPrecondition(body) { return .rejected(status: status) }
        switch status {
        case 401: return .unauthorized
        case 403 where isQuotaJSON(body): return .rateLimited(retryAfter: retryAfter.flatMap { wait($0, now: now) })
        case 403: return .unauthorized
        case 404, 410: return .notFound
        case 412: return .preconditionFailed
        case 423: return .locked(retryAfter: retryAfter.flatMap { wait($0, now: now) })
        case 429, 503: return .rateLimited(retryAfter: retryAfter.flatMap { wait($0, now: now) })
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

    private static let cardPreconditions = [
        "valid-address-data", "supported-address-data", "no-uid-conflict", "max-resource-size",
        "supported-address-data-conversion",
    ]

    private static func containsCardPrecondition(_ body: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        return text.contains("urn:ietf:params:xml:ns:carddav") && cardPreconditions.contains { text.contains($0) }
    }

    /// What the server says went wrong, from a `DAV:error` body's `responsedescription`: printable characters
    /// only, at most 160 of them. Never the body itself, which may echo what was sent.
    static func serverReason(_ body: ArraySlice<UInt8>) -> String? {
        let whole = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let start = whole.firstRange(of: "responsedescription>") else { return nil }
        let text = String(whole[start.upperBound...].prefix { $0 != "<" })
        let printable = String(
            text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }
        ).split(separator: " ").joined(separator: " ")
        guard !printable.isEmpty else { return nil }
        return printable.count > 160 ? String(printable.prefix(160)) + "…" : printable
    }

    /// Google reports quota as `403` with a JSON error body whose reason mentions the quota.
    private static func isQuotaJSON(_ body: ArraySlice<UInt8>) -> Bool {
        guard let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{")
        else { return false }
        return String(decoding: body, as: UTF8.self).lowercased().contains("quota")
    }

    /// RFC 9110 10.2.3: `Retry-After` is delay-seconds or an HTTP-date; returns the wait from `now` (unix
    /// seconds), at least zero.
    static func wait(_ retryAfter: String, now: Int) -> Duration? {
        let value = retryAfter.trimmingWhitespace
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .seconds(max(0, date - now))
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

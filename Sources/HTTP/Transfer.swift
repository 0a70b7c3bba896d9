/// One request on its way: the hop being sent now, and what the earlier hops decided
/// (redirects followed, whether credentials still go along, whether authentication was retried).
final class Transfer {
    let index: Int
    /// The URL the caller asked for: where the request's credentials and body may go (`OriginPolicy`).
    let origin: String
    var method: String
    var url: String
    var headers: [HTTPHeader]
    var body: HTTPBody?
    let lowSpeedTime: Duration?
    var redirects = 0
    var sendsCredentials: Bool
    /// Whether this hop authenticated with Basic (so a Digest challenge calls for another try).
    var hopUsedBasic = false
    /// Whether this hop asked the server first (`.automatic` before its scheme is known).
    var hopAsked = false
    /// The bearer token this hop carries, to say which one a 401 refused.
    var hopBearer: String?
    var retriedAuthentication = false
    let context = TransferContext()
    var hopStarted = ContinuousClock.now
    /// Set when the transfer has finished (after its last hop), until the caller takes it.
    var outcome: Result<HTTPResponse, any Error>?

    init(index: Int, request: HTTPRequest, hasCredentials: Bool) {
        self.index = index
        origin = request.url
        method = request.method
        url = request.url
        headers = request.headers
        body = request.body
        lowSpeedTime = request.lowSpeedTime
        sendsCredentials = hasCredentials
    }

    /// Points the transfer at a redirect target, as RFC 9110 15.4 says, if the origin policy lets the request
    /// (its credentials and its body) go there; otherwise the error to end it with, naming both URLs.
    func redirect(status: Int, to target: String) -> HTTPError? {
        if let refusal = OriginPolicy.refusal(from: origin, to: target) {
            return HTTPError(
                .refusedRedirect,
                "refused to follow the server's redirect from \(redactingUserInfo(url)) to \(redactingUserInfo(target)):"
                    + " \(refusal); nothing was sent there. If that address is right, configure it instead", url: url)
        }
        let next = RedirectPolicy.nextMethod(after: status, method: method)
        if !next.keepsBody {
            body = nil
            headers.removeAll {
                $0.name.isEqualIgnoringASCIICase("Content-Type") || $0.name.isEqualIgnoringASCIICase("Content-Length")
            }
        }
        method = next.method
        url = target
        redirects += 1
        return nil
    }

    /// The header lines for this hop, in curl's format. Credentials the caller put in headers themselves
    /// go no further than credentials from the configuration do.
    func headerLines() throws(HTTPError) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(headers.count + 1)
        for header in headers {
            if !sendsCredentials && header.name.isEqualIgnoringASCIICase("Authorization") {
                continue
            }
            guard isValidHeader(header) else {
                throw HTTPError(.other, "Invalid request header \"\(header.name)\"", url: url)
            }
            // > To add a header with no content, use "name;" (a colon would remove it).
            lines.append(header.value.isEmpty ? header.name + ";" : header.name + ": " + header.value)
        }
        // Expect: 100-continue costs a round trip; only worth it when the server may refuse a large body
        // before it is sent (Radicale closes the connection mid-upload otherwise).
        if !headers.contains(where: { $0.name.isEqualIgnoringASCIICase("Expect") }) {
            lines.append((body?.count ?? 0) > 1 << 20 ? "Expect: 100-continue" : "Expect:")
        }
        return lines
    }
}

private func isValidHeader(_ header: HTTPHeader) -> Bool {
    !header.name.isEmpty
        && header.name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
        && header.value.utf8.allSatisfy { $0 != 0x0D && $0 != 0x0A && $0 != 0 }
}

@available(*, unavailable)
extension Transfer: Sendable {}

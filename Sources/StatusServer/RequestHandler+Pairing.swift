import CMicroHTTPD
import Glibc
import Logging

/// Pairing a browser with the box, and the check every change makes. `GET /api/pairing` says what the box knows
/// of this browser (and, once paired, gives the page its anti-forgery token and the list of paired browsers);
/// `POST /api/pairing` asks to be paired (the box's button decides) or, with `?code=`, pairs with the one-time code
/// of `contactbox pair`; `POST /api/pairing/forget?id=` forgets a paired browser.
extension RequestHandler {
    static let cookieName = "contactbox_pairing"
    static let tokenHeader = "X-ContactBox-Token"

    /// The answer to a pairing request; nil when `path` is not one.
    func answerPairing(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, path: UnsafePointer<CChar>
    ) -> Response? {
        let isPost = strcmp(method, "POST") == 0
        if strcmp(path, "/api/pairing") == 0 {
            if strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 { return pairingAnswer(connection) }
            guard isPost else { return .methodNotAllowed(allow: "GET, HEAD, POST") }
            guard isSameOrigin(connection) else { return .forbidden }
            if let code = MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "code") {
                return redeem(String(cString: code), connection)
            }
            return beginPairing(connection)
        }
        if strcmp(path, "/api/pairing/forget") == 0 {
            guard isPost else { return .methodNotAllowed(allow: "POST") }
            if let refusal = refuseUnlessPaired(connection) { return refusal }
            let id = MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "id").map { String(cString: $0) }
            guard let id, pairings.revoke(id: id) else { return .badRequest("No paired browser has that id.") }
            logger.notice(
                "Paired browser forgotten on the status page",
                metadata: ["pairing.browser": "\(id)", "status.client": "\(clientAddress(connection))"])
            return pairingAnswer(connection)
        }
        return nil
    }

    /// nil when the request comes from the page itself, from a paired browser, with that browser's token (the
    /// `X-ContactBox-Token` header, or a form's `token` field); else the refusal (403, saying to pair the browser
    /// with the button).
    func refuseUnlessPaired(_ connection: OpaquePointer, form: [String: String] = [:]) -> Response? {
        if case .refused(let refusal) = pairedSender(connection, form: form) { return refusal }
        return nil
    }

    /// Who sends a change: the paired browser it comes from, checked as ``refuseUnlessPaired(_:form:)`` says, or
    /// the refusal. One look at the pairings per request.
    enum Sender {
        case paired(PairedBrowsers.Browser)
        case refused(Response)
    }

    func pairedSender(_ connection: OpaquePointer, form: [String: String]) -> Sender {
        guard isSameOrigin(connection) else { return .refused(.forbidden) }
        guard let secret = pairingSecret(connection), case .paired(let browser) = pairings.standing(secret) else {
            return .refused(.notPaired)
        }
        let given = Array((header(connection, Self.tokenHeader) ?? form["token"] ?? "").utf8)
        let expected = Array(secret.token.utf8)
        let matches = given.withUnsafeBufferPointer { RequestGuard.constantTimeEqual($0, expected) }
        return matches ? .paired(browser) : .refused(.notPaired)
    }

    func pairingSecret(_ connection: OpaquePointer) -> PairingSecret? {
        MHD_lookup_connection_value(connection, .COOKIE_KIND, Self.cookieName).flatMap {
            PairingSecret(cookie: String(cString: $0))
        }
    }

    private func pairingAnswer(_ connection: OpaquePointer) -> Response {
        guard let secret = pairingSecret(connection) else { return .pairing(PairingAnswer(standing: "none")) }
        return answer(for: secret, standing: pairings.standing(secret))
    }

    private func answer(for secret: PairingSecret, standing: PairedBrowsers.Standing) -> Response {
        switch standing {
        case .paired(let browser):
            // The cookie again: its 30 days count from now.
            return .pairing(
                PairingAnswer(
                    standing: "paired", token: secret.token, browser: browser.id, browsers: pairings.list(),
                    cookie: secret))
        case .waiting: return .pairing(PairingAnswer(standing: "waiting"))
        case .refused: return .pairing(PairingAnswer(standing: "refused"))
        case .unknown: return .pairing(PairingAnswer(standing: "none"))
        }
    }

    private func beginPairing(_ connection: OpaquePointer) -> Response {
        if let secret = pairingSecret(connection) {
            let standing = pairings.standing(secret)
            if case .paired = standing { return answer(for: secret, standing: standing) }
        }
        let address = clientAddress(connection)
        guard let (secret, request) = pairings.begin(address: address) else {
            return .conflict("Too many browsers are asking to be paired; try again in a few minutes.")
        }
        pair(request)
        var answer = PairingAnswer(standing: "waiting", cookie: secret)
        answer.status = UInt32(MHD_HTTP_ACCEPTED)
        return .pairing(answer)
    }

    private func redeem(_ code: String, _ connection: OpaquePointer) -> Response {
        let address = clientAddress(connection)
        guard let secret = pairings.redeem(code: code, address: address) else {
            logger.notice("Wrong or expired pairing code", metadata: ["status.client": "\(address)"])
            return .wrongPairingCode
        }
        logger.notice("Browser paired with a one-time code", metadata: ["status.client": "\(address)"])
        return answer(for: secret, standing: pairings.standing(secret))
    }
}

/// What `/api/pairing` says: `{"pairing": "none" | "waiting" | "refused" | "paired", "token", "browser",
/// "browsers": [{"id", "paired_at", "last_used", "address"}]}`, the last three only to a paired browser.
struct PairingAnswer: Sendable {
    var standing: String
    var token: String?
    var browser: String?
    var browsers: [PairedBrowsers.Browser] = []
    /// Set in the browser's cookie with this answer.
    var cookie: PairingSecret?
    var status = UInt32(MHD_HTTP_OK)
    /// Over HTTPS: the cookie is never sent over plain HTTP.
    var secure = false

    func render(into body: inout ByteWriter) {
        body.raw("{\"pairing\":")
        body.jsonString(standing)
        if let token, let browser {
            body.raw(",\"token\":")
            body.jsonString(token)
            body.raw(",\"browser\":")
            body.jsonString(browser)
            body.raw(",\"browsers\":[")
            for (index, paired) in browsers.enumerated() {
                if index > 0 { body.raw(",") }
                body.raw("{\"id\":")
                body.jsonString(paired.id)
                body.raw(",\"paired_at\":")
                body.jsonNumber(paired.pairedAt)
                body.raw(",\"last_used\":")
                body.jsonNumber(paired.lastUsed)
                body.raw(",\"address\":")
                body.jsonString(paired.address)
                body.raw("}")
            }
            body.raw("]")
        }
        body.raw("}\n")
    }

    /// `Set-Cookie`: readable by no script (`HttpOnly`), sent with no request another site starts (`SameSite=Strict`),
    /// kept 30 days; over HTTPS, never sent over plain HTTP (`Secure`).
    var setCookie: String? {
        cookie.map {
            "\(RequestHandler.cookieName)=\($0.text); Path=/; Max-Age=\(PairedBrowsers.idleLimit.wholeMilliseconds / 1000); "
                + "HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        }
    }
}

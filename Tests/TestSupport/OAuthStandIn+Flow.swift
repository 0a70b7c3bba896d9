import Foundation

/// The authorization code flow done by hand with curl, as a client would and with no code of the box in between:
/// for the tests of the test bed, and for tests that need tokens without a browser.
extension OAuthStandIn {
    /// An RFC 7636 code verifier and its S256 challenge.
    public struct PKCE: Sendable {
        public var verifier: String
        /// BASE64URL(SHA-256(verifier)), without padding.
        public var challenge: String

        /// A fresh verifier: 64 characters of the unreserved set (RFC 7636 4.1 asks for 43 to 128).
        public init() throws {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            var generator = SystemRandomNumberGenerator()
            try self.init(verifier: String((0..<64).map { _ in alphabet.randomElement(using: &generator)! }))
        }

        /// The challenge of `verifier`, computed by the openssl command (not by the code under test).
        public init(verifier: String) throws {
            self.verifier = verifier
            let outcome = try ChildProcess.run(
                "/usr/bin/openssl", ["dgst", "-sha256", "-hex"], input: Array(verifier.utf8))
            guard outcome.status == 0, let hex = outcome.stdout.split(separator: " ").last else {
                throw TestServerFailure("openssl dgst failed (\(outcome.status)): \(outcome.stderr)")
            }
            var bytes: [UInt8] = []
            var digits = hex.trimmingCharacters(in: .whitespacesAndNewlines)[...]
            while digits.count >= 2, let byte = UInt8(digits.prefix(2), radix: 16) {
                bytes.append(byte)
                digits = digits.dropFirst(2)
            }
            guard bytes.count == 32 else { throw TestServerFailure("openssl dgst printed \(outcome.stdout)") }
            challenge = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
    }

    /// Where the consent sent the browser back: the redirect URI with `code` and `state`, or `error`.
    public struct Redirect: Sendable {
        /// The whole `Location`.
        public var location: String
        /// The query's parameters, decoded.
        public var parameters: [String: String]
        public var code: String? { parameters["code"] }
        public var state: String? { parameters["state"] }
        public var error: String? { parameters["error"] }
    }

    /// The token endpoint's answer: the status and the JSON's fields.
    public struct TokenAnswer: Sendable {
        public var status: Int
        public var body: String
        /// The response's headers, lowercased names.
        public var headers: [String: String]
        public var accessToken: String? { string("access_token") }
        public var refreshToken: String? { string("refresh_token") }
        public var tokenType: String? { string("token_type") }
        public var scope: String? { string("scope") }
        public var expiresIn: Int? { json?["expires_in"] as? Int }
        /// RFC 6749 5.2's `error` of a refused request.
        public var error: String? { string("error") }

        private var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }

        private func string(_ name: String) -> String? { json?[name] as? String }
    }

    /// How the client authenticates at the token endpoint (RFC 6749 2.3.1).
    public enum ClientAuthentication: Sendable {
        /// HTTP Basic with the form-encoded id and secret.
        case basic
        /// `client_id` and `client_secret` in the body.
        case post
    }

    /// The authorization request's URL (RFC 6749 4.1.1 with RFC 7636's challenge), as the box would open it in a
    /// browser. `offline`: `access_type=offline&prompt=consent`, Google's ask for a refresh token.
    public func authorizationRequestURL(
        redirectURI: String, state: String, challenge: String, scope: String = OAuthStandIn.carddavScope,
        offline: Bool = true
    ) -> String {
        var parameters = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        if offline { parameters += [("access_type", "offline"), ("prompt", "consent")] }
        return authorizationURL + "?" + Self.formEncoded(parameters)
    }

    /// The consent by hand: GET the authorization request, then press "Allow" (or "Deny") on the page's form. The
    /// redirect is not followed (nothing listens at `redirectURI`); its `Location` is returned.
    public func authorize(
        redirectURI: String = "http://127.0.0.1:9/callback", state: String = "test-state", pkce: PKCE,
        scope: String = OAuthStandIn.carddavScope, offline: Bool = true, allow: Bool = true
    ) throws -> Redirect {
        try consent(
            to: authorizationRequestURL(
                redirectURI: redirectURI, state: state, challenge: pkce.challenge, scope: scope, offline: offline),
            allow: allow)
    }

    /// The person at the consent page of an authorization request `url` (one the box made, say): Allow (or Deny),
    /// and where the issuer sends the browser then.
    public func consent(to url: String, allow: Bool = true) throws -> Redirect {
        let page = try curlRequest("GET", url, user: nil, includeHeaders: true)
        if page.status == 302, let location = page.headers["location"] { return Self.redirect(location) }
        guard page.status == 200, let match = page.body.firstMatch(of: /name="request" value="([^"]*)"/) else {
            throw TestServerFailure("GET /authorize answered \(page.status): \(page.body.prefix(500))")
        }
        let form = Self.formEncoded([("request", String(match.1)), ("decision", allow ? "allow" : "deny")])
        let answer = try curlRequest(
            "POST", authorizationURL, body: form, contentType: "application/x-www-form-urlencoded", user: nil,
            includeHeaders: true)
        guard answer.status == 302, let location = answer.headers["location"] else {
            throw TestServerFailure("POST /authorize answered \(answer.status): \(answer.body.prefix(500))")
        }
        return Self.redirect(location)
    }

    /// `grant_type=authorization_code` (RFC 6749 4.1.3, RFC 7636 4.5).
    public func exchange(
        code: String, verifier: String, redirectURI: String = "http://127.0.0.1:9/callback",
        authentication: ClientAuthentication = .post
    ) throws -> TokenAnswer {
        try tokenRequest(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
            ], authentication: authentication)
    }

    /// `grant_type=refresh_token` (RFC 6749 6).
    public func refresh(_ refreshToken: String, authentication: ClientAuthentication = .post) throws -> TokenAnswer {
        try tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], authentication: authentication)
    }

    /// The whole flow by hand (consent allowed, offline): an access token and a refresh token, ready for a test.
    public func issueTokens(scope: String = OAuthStandIn.carddavScope) throws -> (access: String, refresh: String) {
        let pkce = try PKCE()
        let redirect = try authorize(pkce: pkce, scope: scope)
        guard let code = redirect.code else { throw TestServerFailure("no code in \(redirect.location)") }
        let answer = try exchange(code: code, verifier: pkce.verifier)
        guard let access = answer.accessToken, let refresh = answer.refreshToken else {
            throw TestServerFailure("POST /token answered \(answer.status): \(answer.body)")
        }
        return (access, refresh)
    }

    /// A POST to the token endpoint with `parameters` and the client's credentials as `authentication` says.
    public func tokenRequest(
        _ parameters: [(String, String)], authentication: ClientAuthentication = .post
    ) throws -> TokenAnswer {
        var parameters = parameters
        var headers: [String] = []
        switch authentication {
        case .post: parameters += [("client_id", clientID), ("client_secret", clientSecret)]
        case .basic:
            let authorization = HTTPTestClient.basicAuthorization(
                user: Self.formEncoded(clientID), password: Self.formEncoded(clientSecret))
            headers.append("Authorization: " + authorization)
        }
        let response = try curlRequest(
            "POST", tokenURL, body: Self.formEncoded(parameters), contentType: "application/x-www-form-urlencoded",
            headers: headers, user: nil, includeHeaders: true)
        return TokenAnswer(status: response.status, body: response.body, headers: response.headers)
    }

    /// application/x-www-form-urlencoded (RFC 6749 Appendix B): everything but the unreserved characters escaped.
    public static func formEncoded(_ parameters: [(String, String)]) -> String {
        parameters.map { formEncoded($0.0) + "=" + formEncoded($0.1) }.joined(separator: "&")
    }

    /// One value form-encoded.
    public static func formEncoded(_ text: String) -> String {
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A redirect's URL read: its query's parameters (form-decoded).
    public static func redirect(_ location: String) -> Redirect {
        // Form-encoded ("+" for a space), so not URLComponents' queryItems.
        var parameters: [String: String] = [:]
        let query = location.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return Redirect(location: location, parameters: parameters)
    }
}

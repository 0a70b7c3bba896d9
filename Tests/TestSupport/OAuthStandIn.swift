import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real OAuth 2.0 authorization server on 127.0.0.1 for the tests, standing in for Google's (no test reaches
/// Google): `Tests/TestSupport/oauth_standin.py`, Python's standard library only, which follows RFC 6749, RFC 7636
/// (PKCE, S256 required), RFC 7662 (introspection) and RFC 7009 (revocation), and chooses as Google does where they
/// leave a choice (a refresh token only for `access_type=offline`, none new on a refresh, loopback redirect URIs on
/// any port). The script's header lists its endpoints and test controls. One confidential client and one user, who
/// consents on a small HTML page (the "Allow" button, id `allow`) or by `authorize` below, without a browser.
///
/// Started on a free port, stopped by PID (SIGTERM, then SIGKILL) when the object goes away.
public final class OAuthStandIn {
    /// The defaults: a client id in Google's shape, a secret, and the account that consents (Radicale's user, so
    /// that `BearerCardDAVServer` serves that user's address books).
    public static let defaultClientID = "contactbox-test.apps.googleusercontent.com"
    public static let defaultClientSecret = "GOCSPX-contactbox-test-secret"
    public static let defaultUser = RadicaleServer.username
    /// Google's CardDAV scope: what a client asks for, and what `BearerCardDAVServer` demands of a token.
    public static let carddavScope = "https://www.googleapis.com/auth/carddav"
    /// The script: `<repo>/Tests/TestSupport/oauth_standin.py`.
    public static let script = repositoryRoot + "/Tests/TestSupport/oauth_standin.py"

    public let port: Int
    /// "http://127.0.0.1:PORT/".
    public let baseURL: String
    /// The authorization endpoint, "http://127.0.0.1:PORT/authorize" (RFC 6749 3.1).
    public let authorizationURL: String
    /// The token endpoint, "http://127.0.0.1:PORT/token" (RFC 6749 3.2).
    public let tokenURL: String
    /// RFC 7662 token introspection (the client's credentials authenticate the caller).
    public let introspectionURL: String
    /// RFC 7009 token revocation.
    public let revocationURL: String
    /// The check nginx's `auth_request` calls: `Authorization: Bearer TOKEN` in, 200 with `X-User` or 401 out.
    public let authCheckURL: String
    public let clientID: String
    public let clientSecret: String
    /// The account that consents: `sub` of its tokens, and the user `BearerCardDAVServer` passes to Radicale.
    public let user: String
    /// How long an access token lives, in seconds (`expires_in`).
    public let accessLifetime: Int
    /// The server's own log: one line per request (method, path without the query, status); never a token.
    public let logPath: String

    private let folder: TemporaryDirectory
    private let arguments: [String]
    private let python: String
    private var process: ChildProcess?

    /// Starts the stand-in and waits until it accepts connections (20 s at most). `rotateRefreshTokens`: a refresh
    /// answers a new refresh token and retires the old one (RFC 6749 6 allows it; Google does not).
    public init(
        clientID: String = OAuthStandIn.defaultClientID, clientSecret: String = OAuthStandIn.defaultClientSecret,
        user: String = OAuthStandIn.defaultUser, accessLifetime: Int = 3600, codeLifetime: Int = 60,
        rotateRefreshTokens: Bool = false
    ) throws {
        if let reason = Self.unavailableReason { throw TestServerFailure(reason) }
        python = Self.python
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.user = user
        self.accessLifetime = accessLifetime
        folder = try TemporaryDirectory(prefix: "contactbox-oauth")
        logPath = folder.file("oauth-standin.log")
        port = Int(try freeLoopbackPort())
        baseURL = "http://127.0.0.1:\(port)/"
        authorizationURL = baseURL + "authorize"
        tokenURL = baseURL + "token"
        introspectionURL = baseURL + "introspect"
        revocationURL = baseURL + "revoke"
        authCheckURL = baseURL + "auth-check"
        arguments =
            [
                "-I", Self.script, "--port", String(port), "--client-id", clientID, "--client-secret", clientSecret,
                "--user", user, "--access-lifetime", String(accessLifetime), "--code-lifetime", String(codeLifetime),
            ] + (rotateRefreshTokens ? ["--rotate-refresh-tokens"] : [])
        try start()
    }

    deinit {
        stop()
    }

    /// Why the stand-in cannot run here, or nil: it needs Python 3 and curl (the fixture's requests).
    public static var unavailableReason: String? {
        guard access(python, X_OK) == 0 else { return "no \(python): run Deploy/test.sh, which installs python3" }
        guard access("/usr/bin/curl", X_OK) == 0 else { return "no /usr/bin/curl: run Deploy/test.sh" }
        return nil
    }

    /// Debian's Python 3: the script needs nothing beyond its standard library.
    static let python = "/usr/bin/python3"

    public var processIdentifier: Int32? { process.map(\.pid) }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the server (again: on the same port, with everything it knew forgotten).
    public func start() throws {
        guard !isRunning else { return }
        process = try ChildProcess(path: python, arguments: arguments, logPath: logPath).serving(
            "the OAuth stand-in (port \(port))", log: logTail
        ) {
            loopbackAccepts(port: port)
        }
    }

    /// Stops the server by PID: SIGTERM, then SIGKILL after 5 s; waits until it is gone.
    public func stop() {
        process?.terminate()
        process = nil
    }

    public func logTail() -> String { ChildProcess.tail(of: logPath) }

    // MARK: - Test controls (the stand-in's /admin/ endpoints: only for tests)

    /// Every access token issued so far expires now: the next request with one gets 401 through nginx, and a client
    /// must refresh.
    public func expireAccessTokens() throws {
        try admin("POST", "admin/expire-access-tokens", expecting: 204)
    }

    /// Revokes `user`'s grants (the stand-in's user by default), as when the user removes the app's access: the next
    /// refresh is `invalid_grant`, and the access tokens stop working too.
    public func revoke(user: String? = nil) throws {
        let name = user ?? self.user
        let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        try admin("POST", "admin/revoke?user=" + query, expecting: 204)
    }

    /// What the stand-in was asked so far: which grant types, how many refreshes, every request's outcome.
    public func log() throws -> Log {
        let response = try admin("GET", "admin/log", expecting: 200)
        do {
            return try JSONDecoder().decode(Log.self, from: Data(response.body.utf8))
        } catch {
            throw TestServerFailure("the OAuth stand-in's log is not what Log reads: \(error): \(response.body)")
        }
    }

    @discardableResult
    private func admin(_ method: String, _ path: String, expecting status: Int) throws -> CurlResponse {
        let response = try curlRequest(method, baseURL + path, user: nil)
        guard response.status == status else {
            throw TestServerFailure("OAuth stand-in: \(method) /\(path) answered \(response.status): \(response.body)")
        }
        return response
    }

    /// The stand-in's request log (`GET /admin/log`). It never holds a token or a code.
    public struct Log: Decodable, Sendable {
        /// Successful token requests by grant type: "authorization_code", "refresh_token".
        public var grants: [String: Int]
        /// Successful refreshes.
        public var refreshes: Int
        /// Authorization codes handed out (consents allowed).
        public var codesIssued: Int
        /// The answers of /auth-check (nginx's question for each CardDAV request) by status: "200", "401", "403".
        public var authChecks: [String: Int]
        public var events: [Event]

        public struct Event: Decodable, Sendable {
            /// "authorize", "authorize-decision", "token", "introspect", "revoke", "admin/...".
            public var endpoint: String
            public var status: Int
            /// The RFC 6749 error code of a refused request ("invalid_grant", ...).
            public var error: String?
            /// A token request's grant type (also when refused, once the request was read that far).
            public var grantType: String?
            /// How the client authenticated at /token: "basic" or "post".
            public var clientAuth: String?
            /// Whether a successful token answer held a refresh token.
            public var refreshTokenIssued: Bool?
            /// The consent's outcome: "allow" or "deny".
            public var decision: String?
            /// /authorize's parameters as sent, without `state` and `code_challenge`.
            public var params: [String: String]?

            enum CodingKeys: String, CodingKey {
                case endpoint, status, error, decision, params
                case grantType = "grant_type"
                case clientAuth = "client_auth"
                case refreshTokenIssued = "refresh_token_issued"
            }
        }

        enum CodingKeys: String, CodingKey {
            case grants, refreshes, events
            case codesIssued = "codes_issued"
            case authChecks = "auth_checks"
        }

        /// The token requests, in order.
        public var tokenRequests: [Event] { events.filter { $0.endpoint == "token" } }
    }
}

@available(*, unavailable) extension OAuthStandIn: Sendable {}

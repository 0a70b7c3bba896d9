import HTTP
import SystemSupport

/// The tokens an issuer handed out: the access token to send (for `expiresIn`), and the refresh token that gets
/// new ones without the person (absent when the issuer keeps the old one).
public struct TokenGrant: Sendable, Equatable {
    public var accessToken: String
    public var expiresIn: Duration?
    public var refreshToken: String?

    public init(accessToken: String, expiresIn: Duration?, refreshToken: String?) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
    }
}

/// The issuer's token endpoint (RFC 6749 3.2): a code traded for tokens once the person consented (4.1.3), and a
/// refresh token traded for a new access token (6). Each call opens a client of its own (`makeClient`, which sets
/// the deadline and the authorities to trust): a token is asked for once an hour, and the connection is not worth
/// keeping.
public struct TokenEndpoint: Sendable {
    public let issuer: OAuthIssuer
    let makeClient: @Sendable () throws(HTTPError) -> HTTPClient

    /// A token answer is a few hundred bytes; anything past this is no token answer.
    static let answerLimit = 64 * 1024

    public init(issuer: OAuthIssuer, makeClient: @escaping @Sendable () throws(HTTPError) -> HTTPClient) {
        self.issuer = issuer
        self.makeClient = makeClient
    }

    /// The code of a sign-in, with the attempt's verifier and redirect address, for the first tokens. The answer
    /// must hold a refresh token: without one, the box could sync for an hour only.
    public func exchange(code: String, for attempt: AuthorizationAttempt) throws(OAuthError) -> TokenGrant {
        let grant = try request([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", attempt.redirectURI),
            ("code_verifier", attempt.pkce.verifier),
        ])
        guard grant.refreshToken != nil else {
            throw OAuthError(
                .issuer,
                "the sign-in server gave no refresh token: remove ContactBox's access in the account's "
                    + "security settings, then sign in again", code: "no refresh_token")
        }
        return grant
    }

    /// A new access token for `refreshToken`.
    public func refresh(_ refreshToken: String) throws(OAuthError) -> TokenGrant {
        try request([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
    }

    private func request(_ fields: [(String, String)]) throws(OAuthError) -> TokenGrant {
        // The client authenticates in the body (RFC 6749 2.3.1), as Google documents for installed apps.
        var form = fields + [("client_id", issuer.clientID)]
        if let secret = issuer.clientSecret { form.append(("client_secret", secret)) }
        let request = HTTPRequest(
            method: "POST", url: issuer.tokenURL,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ], body: Array(FormEncoding.encode(form).utf8))
        let (response, body): (HTTPResponse, [UInt8])
        do {
            (response, body) = try makeClient().send(request, maxBody: Self.answerLimit)
        } catch {
            throw OAuthError(.issuer, "the sign-in server cannot be reached: \(error.message)", code: "\(error.kind)")
        }
        let answer = TokenAnswer(body)
        guard response.status == 200 else {
            throw Self.failure(status: response.status, error: answer?.strings["error"])
        }
        guard let answer, let token = answer.strings["access_token"], !token.isEmpty,
            answer.strings["token_type"]?.lowercased() == "bearer"
        else {
            throw OAuthError(.issuer, "the sign-in server's answer holds no bearer token", code: "HTTP 200")
        }
        let expiresIn = answer.numbers["expires_in"].flatMap { $0 > 0 && $0 < 1e9 ? Duration.seconds($0) : nil }
        return TokenGrant(accessToken: token, expiresIn: expiresIn, refreshToken: answer.strings["refresh_token"])
    }

    /// RFC 6749 5.2's errors in a household's words.
    static func failure(status: Int, error: String?) -> OAuthError {
        switch error {
        case "invalid_grant":
            OAuthError(
                .signInAgain,
                "the sign-in is no longer valid (access removed, or the account's password changed): "
                    + "sign in again", code: "invalid_grant")
        case "invalid_client", "unauthorized_client":
            OAuthError(
                .client, "the sign-in server does not know this client: check the client ID and secret",
                code: error ?? "")
        case let error?:
            OAuthError(.issuer, "the sign-in server refused the request", code: error)
        case nil:
            OAuthError(
                .issuer,
                status == 429 || status >= 500
                    ? "the sign-in server is busy: try again later"
                    : "the sign-in server answered HTTP \(status)", code: "HTTP \(status)")
        }
    }
}

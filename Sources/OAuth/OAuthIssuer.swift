/// Who issues the tokens, and the client the household registered with it (RFC 6749 section 2): where a person
/// consents (`authorizationURL`), where the box trades a code or a refresh token for an access token (`tokenURL`),
/// what it asks for (`scope`), and the client's id and secret. Google's "Desktop app" clients come with a secret
/// that Google itself says is not one ("the client secret is obviously not treated as a secret"); it is kept as a
/// password is all the same.
public struct OAuthIssuer: Sendable, Equatable {
    public var authorizationURL: String
    public var tokenURL: String
    public var scope: String
    public var clientID: String
    public var clientSecret: String?

    public init(authorizationURL: String, tokenURL: String, scope: String, clientID: String, clientSecret: String?) {
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.scope = scope
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// The redirect a person's browser is sent to after consenting. Google lets installed apps use a loopback
    /// address (any port); the browser cannot reach the box there, and needs not: the person copies the address
    /// it shows (or its `code`) into the box's page. The port is one nothing should listen on.
    public static let loopbackRedirect = "http://127.0.0.1:1/contactbox"
}

/// Why signing in or renewing a token failed, in a household's words (``message``), with the issuer's own error
/// code for whoever helps (``code``). Never holds a token, a code or a secret.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The grant is gone (`invalid_grant`): revoked, expired, the password changed, or a code used twice or
        /// too late. Only signing in again helps.
        case signInAgain
        /// The client id or secret is wrong (`invalid_client`, `unauthorized_client`).
        case client
        /// What was pasted is not the answer to this sign-in: another attempt's `state`, no code, an error.
        case pasted
        /// The issuer could not be reached, or answered what no issuer should.
        case issuer
    }

    public var kind: Kind
    public var message: String
    /// The issuer's `error` (RFC 6749 5.2), or what failed.
    public var code: String

    public init(_ kind: Kind, _ message: String, code: String = "") {
        self.kind = kind
        self.message = message
        self.code = code
    }

    public var description: String { code.isEmpty ? message : "\(message) (\(code))" }
}

/// A CardDAV remote that logs in with OAuth 2.0 (`auth = "oauth"`), Google's only way: the issuer's endpoints and
/// scope (or a preset that knows them), the client the household registered, and, in `password_file`, the
/// refresh token the box keeps once someone signed in (written by the box; renewed access tokens stay in memory).
///
/// ```toml
/// [[remote]]
/// name = "google"
/// kind = "carddav"
/// url = "https://www.googleapis.com/carddav/v1/principals/you@gmail.com/lists/default/"
/// username = "you@gmail.com"
/// auth = "oauth"
/// oauth_provider = "google"
/// oauth_client_id = "1234-abc.apps.googleusercontent.com"
/// oauth_client_secret_file = "/var/lib/contactbox/secrets/google.client-secret"
/// password_file = "/var/lib/contactbox/secrets/google.password"
/// ```
public struct OAuthSettings: Sendable, Equatable {
    /// A preset that knows the endpoints and the scope (`google`); nil when they are given.
    public var provider: String?
    public var clientID: String
    public var clientSecret: SecretSource?
    public var authorizationURL: String
    public var tokenURL: String
    public var scope: String

    public init(
        provider: String? = nil, clientID: String, clientSecret: SecretSource?, authorizationURL: String,
        tokenURL: String, scope: String
    ) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.scope = scope
    }

    /// The issuers the box knows: Google's endpoints for installed apps and its CardDAV scope.
    public static let presets: [String: (authorizationURL: String, tokenURL: String, scope: String)] = [
        "google": (
            "https://accounts.google.com/o/oauth2/v2/auth", "https://oauth2.googleapis.com/token",
            "https://www.googleapis.com/auth/carddav"
        )
    ]
}

extension ConfigurationReader {
    static let oauthKeys = [
        "oauth_provider", "oauth_client_id", "oauth_client_secret_file", "oauth_authorization_url", "oauth_token_url",
        "oauth_scope",
    ]

    /// The `oauth_*` keys of a CardDAV block: required with `auth = "oauth"`, refused without it.
    mutating func readOAuth(_ block: Block, auth: RemoteSettings.AuthScheme, allowInsecure: Bool) -> OAuthSettings? {
        guard auth == .oauth else {
            for key in Self.oauthKeys where block.table[key] != nil {
                fail(block, key, "\(key) is only for auth = \"oauth\"")
            }
            return nil
        }
        var preset: (authorizationURL: String, tokenURL: String, scope: String)?
        let provider = string(block, "oauth_provider")
        if let provider {
            preset = OAuthSettings.presets[provider]
            if preset == nil {
                fail(
                    block, "oauth_provider",
                    "oauth_provider must be one of \(OAuthSettings.presets.keys.sorted().joined(separator: ", ")), or "
                        + "left out with oauth_authorization_url, oauth_token_url and oauth_scope given "
                        + "(found \(Configuration.quoted(provider)))")
            }
        }
        let clientID = required(block, "oauth_client_id")
        var clientSecret: SecretSource?
        if let file = string(block, "oauth_client_secret_file"),
            let path = absolutePath(block, "oauth_client_secret_file", value: file)
        {
            if case .settings(let secrets) = role, !Self.isDirectlyInside(secrets, path) {
                fail(
                    block, "oauth_client_secret_file",
                    "oauth_client_secret_file must be a file in \(Configuration.shown(secrets)), where the status page "
                        + "keeps secrets (found \(Configuration.quoted(path)))")
            }
            clientSecret = .file(path)
        }
        func endpoint(_ key: String, _ presetValue: String?) -> String? {
            guard let value = string(block, key) ?? presetValue else {
                fail(block, key, "\(key) is missing (or oauth_provider, whose endpoints the box knows)")
                return nil
            }
            if key != "oauth_scope" { checkURL(block, value, key: key, allowInsecure: allowInsecure) }
            return value
        }
        let authorization = endpoint("oauth_authorization_url", preset?.authorizationURL)
        let token = endpoint("oauth_token_url", preset?.tokenURL)
        let scope = endpoint("oauth_scope", preset?.scope)
        guard let clientID, let authorization, let token, let scope, provider == nil || preset != nil else {
            return nil
        }
        return OAuthSettings(
            provider: provider, clientID: clientID, clientSecret: clientSecret, authorizationURL: authorization,
            tokenURL: token, scope: scope)
    }
}

extension RemoteSettings {
    /// Whether it logs in with OAuth.
    public var signsIn: Bool {
        guard case .carddav(let card) = kind else { return false }
        return card.oauth != nil
    }
}

extension OAuthSettings {
    /// The settings file's lines for these settings: the preset's name instead of its endpoints.
    func settingsLines(quote: (String) -> String) -> [String] {
        var lines: [String] = []
        if let provider { lines.append("oauth_provider = \(quote(provider))") }
        lines.append("oauth_client_id = \(quote(clientID))")
        if case .file(let file)? = clientSecret { lines.append("oauth_client_secret_file = \(quote(file))") }
        let preset = provider.flatMap { Self.presets[$0] }
        if authorizationURL != preset?.authorizationURL {
            lines.append("oauth_authorization_url = \(quote(authorizationURL))")
        }
        if tokenURL != preset?.tokenURL { lines.append("oauth_token_url = \(quote(tokenURL))") }
        if scope != preset?.scope { lines.append("oauth_scope = \(quote(scope))") }
        return lines
    }
}

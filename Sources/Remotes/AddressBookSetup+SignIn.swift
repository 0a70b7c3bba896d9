import Config
import OAuth
import SystemSupport

extension AddressBookSetup {
    /// The issuer a person signs in with, for the page and `remote add` alike: Google's preset, or another issuer
    /// by its addresses and scope; the client's ID and secret as the household registered them. `settings` is what
    /// the remote will name (its client secret apart, which goes to a file of its own).
    public static func issuer(
        _ provider: SetupProvider, clientID: String, clientSecret: String?, authorizationURL: String?,
        tokenURL: String?, scope: String?
    ) throws(SetupFailure) -> (settings: OAuthSettings, issuer: OAuthIssuer) {
        let clientID = clientID.trimmingWhitespace
        guard provider.signsIn else { throw SetupFailure(.invalid, "\(provider.title) does not sign in") }
        guard !clientID.isEmpty else {
            throw SetupFailure(
                .invalid, "give the client ID of your own OAuth client (the README says how to make one)")
        }
        let secret = clientSecret.map(\.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        if let secret, let problem = SettingsFile.passwordProblem(Array(secret.utf8)) {
            throw SetupFailure(.invalid, "the client secret: \(problem)")
        }
        let settings: OAuthSettings
        if let preset = OAuthSettings.presets[provider.rawValue] {
            settings = OAuthSettings(
                provider: provider.rawValue, clientID: clientID, clientSecret: nil,
                authorizationURL: preset.authorizationURL, tokenURL: preset.tokenURL, scope: preset.scope)
        } else {
            let given = [authorizationURL, tokenURL, scope].map { ($0 ?? "").trimmingWhitespace }
            guard !given[2].isEmpty else { throw SetupFailure(.invalid, "give the scope the server asks for") }
            for url in given[0...1] { try checkURL(url) }
            settings = OAuthSettings(
                clientID: clientID, clientSecret: nil, authorizationURL: given[0], tokenURL: given[1], scope: given[2])
        }
        let issuer = OAuthIssuer(
            authorizationURL: settings.authorizationURL, tokenURL: settings.tokenURL, scope: settings.scope,
            clientID: clientID, clientSecret: secret)
        return (settings, issuer)
    }

    /// Trades a sign-in's code for tokens at the issuer (the code once, with the attempt's verifier).
    public func exchange(_ code: String, for attempt: AuthorizationAttempt) throws(SetupFailure) -> TokenGrant {
        let endpoint = TokenSources.endpoint(
            attempt.issuer, caFile: nil, caPath: nil, userAgent: userAgent, logger: logger)
        do {
            return try endpoint.exchange(code: code, for: attempt)
        } catch {
            throw SetupFailure(error)
        }
    }

    /// The account a sign-in gives: the refresh token as its password, the access token to find and test with.
    public static func account(
        _ provider: SetupProvider, username: String, settings: OAuthSettings, clientSecret: String?,
        grant: TokenGrant
    ) -> Account {
        Account(
            provider: provider, username: username, password: Array((grant.refreshToken ?? "").utf8),
            oauth: SignedIn(settings: settings, clientSecret: clientSecret, accessToken: grant.accessToken))
    }
}

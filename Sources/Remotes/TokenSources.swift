import Config
import Glibc
import HTTP
import Logging
import OAuth
import SystemSupport

/// The token sources of the OAuth remotes, one per remote, kept across passes so that an access token is renewed
/// when it is about to expire rather than at every pass. A source is made again when its remote's settings or the
/// refresh token in its file changed (someone signed in again). Used on one thread (the sync worker's).
public final class TokenSources {
    private var sources: [String: (card: RemoteSettings.CardDAVSettings, source: TokenSource)] = [:]

    public init() {}

    /// How long a token request may take: the issuer answers in well under a second.
    static let requestLimit = Duration.seconds(30)

    /// The remote's token source; the refresh token is read from its password file each time (a few bytes).
    func source(
        for name: String, card: RemoteSettings.CardDAVSettings, oauth: OAuthSettings, userAgent: String,
        logger: Logger
    ) throws -> TokenSource {
        let refreshToken = try card.password.read()
        // Kept while the settings are the same and the file holds its refresh token (a rotated one is saved there).
        if let kept = sources[name], kept.card == card, kept.source.renews(with: refreshToken) { return kept.source }
        let issuer = OAuthIssuer(
            authorizationURL: oauth.authorizationURL, tokenURL: oauth.tokenURL, scope: oauth.scope,
            clientID: oauth.clientID, clientSecret: try oauth.clientSecret?.read())
        let source = TokenSource(
            refreshToken: refreshToken,
            endpoint: Self.endpoint(
                issuer, caFile: card.caFile, caPath: card.caPath, userAgent: userAgent, logger: logger),
            logger: logger
        ) { rotated in
            // Best effort: the old token may still work, and the new one is in memory until the next start.
            guard case .file(let path) = card.password else { return }
            do {
                try SmallFile.replace(path, with: Array(rotated.utf8), mode: 0o600)
            } catch {
                logger.warning("The renewed sign-in could not be saved", metadata: ["oauth.error": "\(error)"])
            }
        }
        sources[name] = (card, source)
        return source
    }

    /// Whether the remote's sign-in is no longer valid: the page offers to sign in again.
    public func needsSignIn(_ name: String) -> Bool {
        sources[name]?.source.needsSignIn ?? false
    }

    /// The issuer's token endpoint, reached with the remote's authorities and no credentials of the remote's.
    static func endpoint(
        _ issuer: OAuthIssuer, caFile: String?, caPath: String?, userAgent: String, logger: Logger
    ) -> TokenEndpoint {
        TokenEndpoint(issuer: issuer) { () throws(HTTPError) -> HTTPClient in
            var configuration = HTTPConfiguration(userAgent: userAgent, maxConcurrent: 1, maxRedirects: 0)
            if caFile != nil || caPath != nil {
                configuration.caFile = caFile
                configuration.caPath = caPath
            }
            configuration.deadline = .now + requestLimit
            return try HTTPClient(configuration, logger: logger)
        }
    }
}

import HTTP
import Logging
import Synchronization

/// The bearer tokens of one remote (`BearerTokens`): the access token lives in memory only and is renewed with the
/// refresh token shortly before it expires, and when a server refuses it (401). When the issuer says the grant is
/// gone (`invalid_grant`), no token is handed out any more: requests go without, the server's 401 ends the sync
/// as a refused login, and ``needsSignIn`` says why. The refresh token itself never leaves this value but to the
/// token endpoint, and to `saveRefreshToken` when the issuer hands out a new one.
public final class TokenSource: BearerTokens {
    /// A token this close to its expiry is renewed before it is sent: a request takes that long at most to begin.
    /// One that lives less than twice this is renewed halfway through its life instead.
    static let renewBefore = Duration.seconds(60)

    private struct State {
        var refreshToken: String
        var accessToken: String?
        /// When to renew it (before it expires); nil: when a server refuses it.
        var renewAt: ContinuousClock.Instant?
        var needsSignIn = false
    }

    private let state: Mutex<State>
    let endpoint: TokenEndpoint
    let saveRefreshToken: @Sendable (String) -> Void
    let logger: Logger

    public init(
        refreshToken: String, endpoint: TokenEndpoint, logger: Logger,
        saveRefreshToken: @escaping @Sendable (String) -> Void
    ) {
        state = Mutex(State(refreshToken: refreshToken))
        self.endpoint = endpoint
        self.logger = logger
        self.saveRefreshToken = saveRefreshToken
    }

    /// Whether the issuer refused the refresh token: only signing in again helps.
    public var needsSignIn: Bool { state.withLock { $0.needsSignIn } }

    /// Whether `refreshToken` is the one this source renews with (the one it began with, or the issuer's rotated
    /// one since).
    public func renews(with refreshToken: String) -> Bool { state.withLock { $0.refreshToken == refreshToken } }

    public func current() throws(HTTPError) -> String? {
        let now = ContinuousClock.now
        let (valid, refreshToken, needsSignIn) = state.withLock { state -> (String?, String, Bool) in
            let fresh = state.renewAt.map { now < $0 } ?? true
            return (fresh ? state.accessToken : nil, state.refreshToken, state.needsSignIn)
        }
        if let valid { return valid }
        if needsSignIn { return nil }
        let grant: TokenGrant
        do {
            grant = try endpoint.refresh(refreshToken)
        } catch  where error.kind == .signInAgain {
            state.withLock { $0.needsSignIn = true }
            logger.error(
                "The sign-in is no longer valid: sign in again on the status page",
                metadata: ["oauth.error": "\(error.code)"])
            return nil
        } catch {
            throw HTTPError(.connect, "A new access token could not be had: \(error)")
        }
        let rotated = grant.refreshToken.flatMap { $0 == refreshToken ? nil : $0 }
        state.withLock {
            $0.accessToken = grant.accessToken
            $0.renewAt = grant.expiresIn.map { now + max($0 - Self.renewBefore, $0 / 2) }
            if let rotated { $0.refreshToken = rotated }
        }
        // A rotated refresh token replaces the old one, which the issuer may refuse from now on.
        if let rotated { saveRefreshToken(rotated) }
        logger.debug(
            "Access token renewed",
            metadata: ["oauth.expires_in": "\(grant.expiresIn.map { "\($0.components.seconds)s" } ?? "unknown")"])
        return grant.accessToken
    }

    public func refused(_ token: String) {
        state.withLock { state in
            if state.accessToken == token { state.accessToken = nil }
        }
    }
}

/// The access token a sign-in has just given, for the requests that follow it at once (finding and testing the
/// account's books) before anything is saved: never renewed; refused once, gone.
public final class IssuedToken: BearerTokens {
    private let token: Mutex<String?>

    public init(_ accessToken: String) {
        token = Mutex(accessToken)
    }

    public func current() throws(HTTPError) -> String? { token.withLock { $0 } }

    public func refused(_ refused: String) {
        token.withLock { if $0 == refused { $0 = nil } }
    }
}

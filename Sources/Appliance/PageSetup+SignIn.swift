import Config
import OAuth
import Remotes
import StatusServer
import SystemSupport

/// A sign-in in progress (OAuth 2.0 with PKCE): the attempt (its `state` and verifier, kept in the daemon only),
/// the paired browser that started it, and what the account will be once the code is traded for tokens.
struct SignIn: Sendable {
    var attempt: AuthorizationAttempt
    /// The paired browser that asked: the answer is taken from that browser alone.
    var browser: String?
    var provider: SetupProvider
    var username: String
    var address: String?
    /// The issuer as the remote will name it (its client secret apart).
    var settings: OAuthSettings
    var clientSecret: String?
    /// Signing an existing remote in again: its name (the tokens replace its refresh token).
    var remote: String?
}

/// Signing in from the page (Google, or another issuer): *sign-in* makes the address to open, where the person
/// consents; the issuer then sends their browser to a loopback address it cannot show, and the person pastes that
/// address (or its code) back; *signed-in* trades the code for tokens and finds the account's books, which are
/// added as any others are, the refresh token in the remote's password file.
extension PageSetup {
    func signIn(_ form: [String: String]) -> SetupAnswer {
        if let remote = form["remote"] { return signInAgain(remote, browser: form["@browser"]) }
        guard let provider = form["provider"].flatMap(SetupProvider.init(rawValue:)), provider.signsIn else {
            return .refused(status: 400, message: "Choose Google, or another server that signs in.")
        }
        let username = (form["username"] ?? "").trimmingWhitespace
        let address = form["address"].map(\.trimmingWhitespace)
        guard !username.isEmpty else {
            return .refused(status: 400, message: "Give the account's address (the user name).")
        }
        if provider == .oauth, (address ?? "").isEmpty {
            return .refused(status: 400, message: "Give the server's address.")
        }
        let chosen: (settings: OAuthSettings, issuer: OAuthIssuer)
        do {
            chosen = try AddressBookSetup.issuer(
                provider, clientID: form["client_id"] ?? "", clientSecret: form["client_secret"],
                authorizationURL: form["authorization_url"], tokenURL: form["token_url"], scope: form["scope"])
        } catch {
            return .refused(
                status: 400, message: error.message.prefix(1).uppercased() + error.message.dropFirst() + ".")
        }
        let signIn = SignIn(
            attempt: AuthorizationAttempt(issuer: chosen.issuer, loginHint: provider == .google ? username : nil),
            browser: form["@browser"], provider: provider, username: username, address: address,
            settings: chosen.settings, clientSecret: chosen.issuer.clientSecret)
        return open(signIn)
    }

    /// *Sign in again* for a remote of the settings file whose grant was revoked or expired: its issuer and client
    /// as saved, a new sign-in; the tokens it gives replace the remote's refresh token (after a test listing).
    private func signInAgain(_ name: String, browser: String?) -> SetupAnswer {
        let check = Configuration.checked(path: configPath, readingSecrets: false)
        guard let configuration = check.configuration,
            let remote = configuration.remotes.first(where: { $0.name == name }),
            case .carddav(let card) = remote.kind, let oauth = card.oauth
        else {
            return .refused(status: 400, message: "There is no address book named \(name) that signs in.")
        }
        guard !check.origin(of: .remote(name)).isFixed else {
            return .refused(
                status: 409,
                message: "\(name) is set by the administrator in /etc/contactbox, where its password_file holds the "
                    + "sign-in: it is renewed there.")
        }
        let clientSecret: String?
        do {
            clientSecret = try oauth.clientSecret?.read()
        } catch {
            return .refused(status: 500, message: "The client secret of \(name) cannot be read: \(error)")
        }
        let issuer = OAuthIssuer(
            authorizationURL: oauth.authorizationURL, tokenURL: oauth.tokenURL, scope: oauth.scope,
            clientID: oauth.clientID, clientSecret: clientSecret)
        let provider: SetupProvider = oauth.provider == "google" ? .google : .oauth
        return open(
            SignIn(
                attempt: AuthorizationAttempt(issuer: issuer, loginHint: provider == .google ? card.username : nil),
                browser: browser, provider: provider, username: card.username, address: card.url, settings: oauth,
                clientSecret: clientSecret, remote: name))
    }

    /// The sign-in waits for the pasted answer, unless another step runs.
    private func open(_ signIn: SignIn) -> SetupAnswer {
        let now = monotonicMillis()
        let started = state.withLock { state -> Bool in
            guard !state.isRunning else { return false }
            state.phase = .signingIn
            state.provider = signIn.provider
            state.remote = signIn.remote
            state.account = nil
            state.books = []
            state.message = nil
            state.lastUse = now
            state.signIn = signIn
            return true
        }
        guard started else {
            return .refused(status: 409, message: "The box is still busy with the last step: wait for it.")
        }
        return answer(.read)
    }

    func signedIn(_ form: [String: String]) -> SetupAnswer {
        guard let signIn = state.withLock({ $0.phase == .signingIn ? $0.signIn : nil }) else {
            return .refused(status: 409, message: "Start signing in first.")
        }
        guard signIn.browser == form["@browser"] else {
            return .refused(status: 409, message: "Paste the address in the browser that started signing in.")
        }
        let code: String
        do {
            // Read here, before any network: a wrong paste can be corrected, the sign-in stays open.
            code = try signIn.attempt.code(fromPasted: form["pasted"] ?? "")
        } catch {
            return .refused(status: 400, message: "The address pasted: \(error.message).")
        }
        if let remote = signIn.remote { return signedInAgain(remote, code: code, signIn: signIn) }
        return start(.signedIn) { (setup) throws(SetupFailure) in
            let grant = try setup.exchange(code, for: signIn.attempt)
            let account = AddressBookSetup.account(
                signIn.provider, username: signIn.username, settings: signIn.settings,
                clientSecret: signIn.clientSecret, grant: grant)
            let books = try setup.discover(
                signIn.provider, address: signIn.address, username: signIn.username, password: account.password,
                bearer: account.bearer)
            return { state in
                state.account = account
                state.books = books
                state.signIn = nil
                state.phase = .found
            }
        }
    }

    private func signedInAgain(_ name: String, code: String, signIn: SignIn) -> SetupAnswer {
        start(.signedIn, remote: name) { (setup) throws(SetupFailure) in
            let grant = try setup.exchange(code, for: signIn.attempt)
            // Its new refresh token is its password now, tested with the access token first.
            try setup.replacePassword(
                of: name, with: Array((grant.refreshToken ?? "").utf8), bearer: IssuedToken(grant.accessToken))
            return { state in
                state.signIn = nil
                state.added = [name]
                state.phase = .added
            }
        }
    }
}

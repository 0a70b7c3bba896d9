import Config
import Logging
import Remotes
import StatusServer
import Synchronization
import SystemSupport

/// Adding an address book from the status page, step by step: find the account's books (discovery), then test and
/// add those chosen, through `AddressBookSetup`, the service `contactbox remote add` uses. Replacing a remote's
/// password is such a step too: the new one is tested (a login and a listing) before it is saved. Each step runs on a thread
/// of its own (a network wait may take up to `AddressBookSetup.deadlineLimit`), never the status server's; the page
/// asks for the state until the step is over. One step at a time, for every browser together.
///
/// The password typed is kept in memory from *find* to *add* only (for the login test, then written to the secrets
/// folder by the add), and let go when the add is done, when a step fails, on *cancel*, and after `idleLimit`
/// unused. It is never sent back, logged, or shown.
final class PageSetup: Sendable {
    static let idleLimit = Duration.seconds(10 * 60)

    struct State {
        var phase = SetupView.Phase.idle
        /// The remote whose password is being replaced.
        var remote: String?
        var provider: SetupProvider?
        var account: AddressBookSetup.Account?
        var books: [AddressBookSetup.Candidate] = []
        var added: [String] = []
        var message: String?
        /// Monotonic milliseconds of the last request.
        var lastUse: Int64 = 0
        var thread: WorkerThread?
        /// A sign-in waiting for the answer the person pastes, and the paired browser that started it.
        var signIn: SignIn?

        var isRunning: Bool { phase.isRunning }

        /// The step failed: say why, and let the password go.
        mutating func fail(_ message: String) {
            phase = .failed
            self.message = message
            account = nil
            signIn = nil
        }
    }

    let state = Mutex(State())
    let configPath: String
    let logger: Logger
    let userAgent: String
    /// The settings file was saved: the daemon reloads.
    let saved: @Sendable () -> Void

    init(configPath: String, logger: Logger, userAgent: String, saved: @escaping @Sendable () -> Void) {
        self.configPath = configPath
        self.logger = logger
        self.userAgent = userAgent
        self.saved = saved
    }

    func answer(_ request: SetupRequest) -> SetupAnswer {
        switch request {
        case .read: return view()
        case .find(let form): return find(form)
        case .add(let form): return add(form)
        case .replacePassword(let form): return replacePassword(form)
        case .signIn(let form): return signIn(form)
        case .signedIn(let form): return signedIn(form)
        case .cancel:
            state.withLock { state in
                guard !state.isRunning else { return }
                state.account = nil
                state.signIn = nil
                state.remote = nil
                state.phase = .idle
                state.books = []
                state.message = nil
            }
            return view()
        }
    }

    private func view() -> SetupAnswer {
        let now = monotonicMillis()
        return .view(
            state.withLock { state in
                if !state.isRunning, state.account != nil || state.signIn != nil,
                    now - state.lastUse > Self.idleLimit.wholeMilliseconds
                {
                    state.account = nil
                    state.signIn = nil
                    state.phase = .idle
                    state.books = []
                }
                return SetupView(
                    phase: state.phase, remote: state.remote, provider: state.provider?.rawValue,
                    books: state.books.map { .init(url: $0.url, name: $0.displayName, contacts: $0.cardCount) },
                    added: state.added, message: state.message,
                    authorizeURL: state.phase == .signingIn ? state.signIn?.attempt.url : nil, providers: Self.providers
                )
            })
    }

    static let providers = SetupProvider.allCases.map {
        SetupView.Provider(
            id: $0.rawValue, title: $0.title, help: $0.passwordHelp, needsAddress: $0.needsAddress,
            needsLogin: $0.needsLogin, signsIn: $0.signsIn)
    }

    private func find(_ form: [String: String]) -> SetupAnswer {
        guard let provider = form["provider"].flatMap(SetupProvider.init(rawValue:)) else {
            return .refused(status: 400, message: "Choose where the address book is.")
        }
        let username = form["username"] ?? ""
        let password = Array((form["password"] ?? "").utf8)
        let address = form["address"]
        if provider.needsLogin, username.isEmpty || password.isEmpty {
            return .refused(status: 400, message: "Give the user name and the app password.")
        }
        if provider.needsAddress, (address ?? "").isEmpty {
            return .refused(
                status: 400, message: provider == .folder ? "Give the folder's path." : "Give the server's address.")
        }
        let account = AddressBookSetup.Account(provider: provider, username: username, password: password)
        return start(.finding, account: account) { (setup) throws(SetupFailure) in
            let books = try setup.discover(provider, address: address, username: username, password: password)
            return { state in
                state.books = books
                state.phase = .found
            }
        }
    }

    private func add(_ form: [String: String]) -> SetupAnswer {
        let chosen = Set((form["books"] ?? "").split(separator: "\n").map { String($0) })
        let version = form["version"].flatMap(SettingsFile.Version.init)
        let picked: (books: [AddressBookSetup.Candidate], account: AddressBookSetup.Account)? = state.withLock {
            guard $0.phase == .found, let account = $0.account else { return nil }
            return ($0.books.filter { chosen.contains($0.url) }, account)
        }
        guard let picked else { return .refused(status: 409, message: "Find the address books first.") }
        guard !picked.books.isEmpty else { return .refused(status: 400, message: "Choose at least one address book.") }
        return start(.adding, account: picked.account) {
            (setup) throws(SetupFailure) in
            // The login and one listing of each, before anything is saved.
            for book in picked.books {
                _ = try setup.test(
                    setup.remote(for: book, account: picked.account, name: "test"), password: picked.account.password,
                    bearer: picked.account.bearer)
            }
            let added = try setup.add(picked.books, account: picked.account, expecting: version)
            return { state in
                state.added = added.map(\.name)
                state.books = []
                state.phase = .added
                state.account = nil
            }
        }
    }

    /// A remote's new app password: tested, then saved in its password file; the next pass logs in with it.
    private func replacePassword(_ form: [String: String]) -> SetupAnswer {
        let name = form["remote"] ?? ""
        let password = Array((form["password"] ?? "").utf8)
        guard !password.isEmpty else { return .refused(status: 400, message: "Type the new app password.") }
        return start(.checking, remote: name) { (setup) throws(SetupFailure) in
            try setup.replacePassword(of: name, with: password)
            return { state in
                state.phase = .replaced
                state.added = []
            }
        }
    }

    /// Starts `step` on a thread of its own, unless one runs; what it returns is applied to the state when it ends.
    /// `account`: the login being set up, kept until the add (nil: none); `remote`: the remote whose password is
    /// being replaced (nil: none).
    func start(
        _ phase: SetupView.Phase, account: AddressBookSetup.Account? = nil, remote: String? = nil,
        step: @escaping @Sendable (AddressBookSetup) throws(SetupFailure) -> @Sendable (inout State) -> Void
    ) -> SetupAnswer {
        let now = monotonicMillis()
        let (started, previous) = state.withLock { state -> (Bool, WorkerThread?) in
            guard !state.isRunning else { return (false, nil) }
            state.phase = phase
            state.remote = remote
            if let account { state.provider = account.provider }
            state.account = account
            state.message = nil
            state.lastUse = now
            defer { state.thread = nil }
            return (true, state.thread)
        }
        guard started else {
            return .refused(status: 409, message: "The box is still busy with the last step: wait for it.")
        }
        // The last step's thread has ended (nothing runs): take it back.
        _ = previous?.join(waitingAtMost: .seconds(1))
        let (configPath, logger, userAgent, saved) = (configPath, logger, userAgent, saved)
        do throws(ApplianceError) {
            let thread = try WorkerThread { [self] in
                let check = Configuration.checked(path: configPath, readingSecrets: false)
                let apply: @Sendable (inout State) -> Void
                if let configuration = check.configuration {
                    do throws(SetupFailure) {
                        apply = try step(
                            AddressBookSetup(
                                check: check, configuration: configuration, logger: logger, userAgent: userAgent))
                    } catch {
                        apply = { $0.fail(error.description) }
                    }
                } else {
                    apply = { $0.fail("The administrator's configuration has a problem: \(check.errors[0])") }
                }
                let (phase, added, remote) = state.withLock { state in
                    apply(&state)
                    return (state.phase, state.added, state.remote)
                }
                if phase == .added, let remote {
                    logger.notice("Signed in again on the status page", metadata: ["remote.name": "\(remote)"])
                    saved()
                } else if phase == .added {
                    logger.notice(
                        "Address book added on the status page",
                        metadata: ["remotes": "\(added.joined(separator: ", "))"])
                    saved()
                } else if phase == .replaced, let remote {
                    logger.notice("Password replaced on the status page", metadata: ["remote.name": "\(remote)"])
                    saved()
                }
            }
            state.withLock { $0.thread = thread }
        } catch {
            state.withLock { $0.fail("The box could not start this step: \(error.message)") }
        }
        return view()
    }
}

import CardDAV
import Config
import Glibc
import HTTP
import Logging
import OAuth
import Sync

/// Adding and removing address books, one implementation for the command line (`contactbox remote`) and the
/// status page (the daemon's worker thread): plain values in and out, no terminal, and every network wait bounded
/// by ``deadlineLimit`` on top of the HTTP client's own limits.
///
/// The order is the household's: ``discover(_:address:username:password:)`` finds the books of an account,
/// ``test(_:password:)`` logs in and lists the chosen one before anything is saved, ``add(_:account:)`` writes the
/// passwords and then the settings file (`SettingsFile`), ``remove(_:)`` takes a remote out of it again. The
/// administrator's file (/etc) is never written; its remotes are refused here.
public struct AddressBookSetup: Sendable {
    /// The settings file the page and the command line write.
    public let settings: SettingsFile
    /// The administrator's file, to name in refusals.
    public let administratorFile: String
    /// The names of the remotes the administrator's file sets: taken, and not removable here.
    public let administratorRemotes: [String]
    /// The URLs and folders of the administrator's remotes: a book set up there is not added twice.
    public var administratorBooks: [String] = []
    public let logger: Logger
    public let userAgent: String
    /// How long discovery, or a test, may take in all: a person is waiting for the answer.
    public var deadlineLimit = Duration.seconds(120)

    public init(
        settings: SettingsFile, administratorFile: String, administratorRemotes: [String], logger: Logger,
        userAgent: String
    ) {
        self.settings = settings
        self.administratorFile = administratorFile
        self.administratorRemotes = administratorRemotes
        self.logger = logger
        self.userAgent = userAgent
    }

    /// The setup of the box the check describes: its settings file, and the remotes its administrator's file sets.
    public init(check: ConfigurationCheck, configuration: Configuration, logger: Logger, userAgent: String) {
        let administrator = configuration.remotes.filter { check.origin(of: .remote($0.name)).isFixed }
        self.init(
            settings: SettingsFile(configuration: configuration), administratorFile: check.path,
            administratorRemotes: administrator.map(\.name), logger: logger, userAgent: userAgent)
        administratorBooks = administrator.map(\.place)
    }

    /// An address book found by discovery.
    public struct Candidate: Sendable, Equatable {
        /// The address book's URL, or a folder's path.
        public var url: String
        public var displayName: String?
        /// How many contacts it holds, where that is cheap to know: a folder's `.vcf` files. CardDAV has no property
        /// that counts a book's cards; counting means listing every card (a first sync's work), so discovery leaves
        /// it nil and ``test(_:password:)``, which lists the chosen book anyway, gives it.
        public var cardCount: Int?

        public init(url: String, displayName: String?, cardCount: Int? = nil) {
            self.url = url
            self.displayName = displayName
            self.cardCount = cardCount
        }
    }

    /// Who logs in to the books found: the provider, its user name and its password (UTF-8 bytes, as typed), or,
    /// for an account signed in with OAuth, the refresh token as its password and ``oauth``.
    public struct Account: Sendable {
        public var provider: SetupProvider
        public var username: String
        public var password: [UInt8]
        /// The certificate authority a server of the household's own is signed by (a remote's `ca_file`); nil: the
        /// system's authorities.
        public var caFile: String?
        public var oauth: SignedIn?

        public init(
            provider: SetupProvider, username: String, password: [UInt8], caFile: String? = nil,
            oauth: SignedIn? = nil
        ) {
            self.provider = provider
            self.username = username
            self.password = password
            self.caFile = caFile
            self.oauth = oauth
        }

        /// What finding and testing the books send: the access token the sign-in gave, if there was one.
        public var bearer: (any BearerTokens)? { oauth.map { IssuedToken($0.accessToken) } }
    }

    /// An account signed in with OAuth: the issuer (its client secret apart, which goes to its own file), and the
    /// access token the sign-in gave; the refresh token is the account's password.
    public struct SignedIn: Sendable {
        public var settings: OAuthSettings
        public var clientSecret: String?
        public var accessToken: String

        public init(settings: OAuthSettings, clientSecret: String?, accessToken: String) {
            self.settings = settings
            self.clientSecret = clientSecret
            self.accessToken = accessToken
        }
    }

    /// The address books behind the provider's URL (or `address`: a server's URL, a folder's path).
    /// `bearer`: an OAuth account's access token, instead of the password.
    public func discover(
        _ provider: SetupProvider, address: String?, username: String, password: [UInt8], caFile: String? = nil,
        bearer: (any BearerTokens)? = nil
    ) throws(SetupFailure) -> [Candidate] {
        guard let start = provider.start(address: address, username: username) else {
            throw SetupFailure(
                .invalid,
                provider == .folder
                    ? "give the folder's path" : "give the server's address (https://...)")
        }
        guard provider != .folder else { return [try folderCandidate(start)] }
        try Self.checkURL(start)
        let client = try client(username: username, password: password, caFile: caFile, bearer: bearer)
        let found: Discovery
        do {
            found = try client.explore(start)
        } catch let error as CardDAVError {
            throw SetupFailure(error)
        } catch {
            throw SetupFailure(.unreachable, "the server cannot be reached", detail: "\(error)")
        }
        guard !found.books.isEmpty else {
            switch found.start {
            case .missing:
                throw SetupFailure(.notFound, "nothing is at that address: check it", detail: found.startText)
            case .notDAV, .calendar:
                throw SetupFailure(
                    .notCardDAV, "that address is not a CardDAV server (an address book server)",
                    detail: found.startText)
            case .addressBook, .collection, .resource:
                throw SetupFailure(.notFound, "the account has no address book", detail: found.startText)
            }
        }
        return found.books.map { Candidate(url: $0.url, displayName: $0.displayName) }
    }

    /// What the test found: the book's contacts, counted from one listing.
    public struct TestOutcome: Sendable, Equatable {
        public var contacts: Int
    }

    /// Logs in and lists the book once (a folder: checks that it is there and that the service may write it),
    /// before anything is saved. `password` is the one typed (a remote's password file is not read: it may not be
    /// written yet).
    public func test(
        _ remote: RemoteSettings, password: [UInt8], bearer: (any BearerTokens)? = nil
    ) throws(SetupFailure) -> TestOutcome {
        switch remote.kind {
        case .vdir(let folder, _):
            return TestOutcome(contacts: try folderCandidate(folder).cardCount ?? 0)
        case .carddav(let card):
            let url = card.url
            try Self.checkURL(url)
            let client = try client(
                username: card.username, password: password, auth: card.authScheme, caFile: card.caFile,
                caPath: card.caPath, bearer: bearer)
            var contacts = 0
            do {
                // One PROPFIND of the URL itself: a book chosen by hand must be a book, not the server's root.
                let found = try client.explore(url)
                if case .missing = found.start {
                    throw SetupFailure(.notFound, "nothing is at that address: check it", detail: found.startText)
                }
                guard found.start == .addressBook else {
                    throw SetupFailure(
                        .notCardDAV, "that address is not an address book: choose one of those discovery found",
                        detail: found.startText)
                }
                try client.list(bookURL: url) { _, _, _ in contacts += 1 }
            } catch let error as CardDAVError {
                throw SetupFailure(error)
            } catch let error as SetupFailure {
                throw error
            } catch {
                throw SetupFailure(.unreachable, "the server cannot be reached", detail: "\(error)")
            }
            return TestOutcome(contacts: contacts)
        }
    }

    /// A client with the setup's deadline and the HTTP client's own limits (connection, low speed, total).
    private func client(
        username: String, password: [UInt8], auth: RemoteSettings.AuthScheme = .basic, caFile: String? = nil,
        caPath: String? = nil, bearer: (any BearerTokens)? = nil
    ) throws(SetupFailure) -> CardDAVClient {
        if let problem = SettingsFile.passwordProblem(password) { throw SetupFailure(.invalid, problem) }
        guard !username.isEmpty else { throw SetupFailure(.invalid, "give the user name") }
        // passwordProblem checked that the bytes are UTF-8.
        let text = String(decoding: password, as: UTF8.self)
        do {
            let http = try RemoteFactory.makeHTTPClient(
                username: username, password: text, auth: auth, caFile: caFile, caPath: caPath, concurrency: 1,
                userAgent: userAgent, logger: logger, deadline: ContinuousClock.now + deadlineLimit, bearer: bearer)
            return CardDAVClient(http: http, logger: logger)
        } catch let error as HTTPError {
            throw SetupFailure(error)
        } catch {
            throw SetupFailure(.unreachable, "the connection could not be prepared", detail: "\(error)")
        }
    }

    /// Only web addresses: anything else would reach libcurl's other protocols.
    static func checkURL(_ url: String) throws(SetupFailure) {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            throw SetupFailure(.invalid, "the address must start with https://")
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw SetupFailure(.invalid, "the address holds a space or a control character")
        }
    }
}

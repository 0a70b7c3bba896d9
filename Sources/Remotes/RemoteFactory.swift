import CardDAV
import Config
import ContactStore
import HTTP
import Logging
import Sync

/// A configured remote, opened: the address book to sync and the store's row for it (created on first use).
public struct OpenedRemote {
    public var book: AddressBook
    public var remote: Remote
}

/// Builds address books from the configuration. Discovery runs once per remote and is remembered in the store, so
/// that a sync with nothing to do stays one request; pointing a remote elsewhere in the configuration starts it
/// afresh.
public struct RemoteFactory {
    /// The source of the factory's own log lines (a remote that moved), which the daemon's status page lists beside
    /// the `Appliance` module's (`StatusBoardLogHandler`); the address books' lines keep their module's.
    public static let logSource = "RemoteFactory"

    public let store: ContactStore
    public let logger: Logger
    public let userAgent: String
    public var retry = RetryPolicy()
    /// How long one remote's turn in a pass may take, all its requests and retries together (`TurnDeadline`); a
    /// test makes it short.
    public var turnLimit = TurnDeadline.standardLimit
    /// The OAuth remotes' tokens, kept across passes by whoever keeps this (the sync worker).
    public let tokens: TokenSources

    public init(store: ContactStore, logger: Logger, userAgent: String, tokens: TokenSources = TokenSources()) {
        self.store = store
        self.logger = logger
        self.userAgent = userAgent
        self.tokens = tokens
    }

    /// `deadline`: the end of the turn, which the remote's requests and retries keep.
    public func open(_ configuration: RemoteSettings, deadline: TurnDeadline? = nil) throws -> OpenedRemote {
        switch configuration.kind {
        case .vdir(let folder, let createFolder):
            let book = try VdirAddressBook(name: configuration.name, folder: folder, createIfMissing: createFolder)
            let remote = try prepareRemote(configuration.name, kind: .vdir, url: folder)
            return OpenedRemote(book: book, remote: remote)
        case .carddav(let card):
            let (url, concurrency) = (card.url, card.concurrency)
            let bearer = try card.oauth.map { oauth in
                try tokens.source(
                    for: configuration.name, card: card, oauth: oauth, userAgent: userAgent, logger: logger)
            }
            let http = try Self.makeHTTPClient(
                username: card.username, password: bearer == nil ? try card.password.read() : "",
                auth: card.authScheme, caFile: card.caFile, caPath: card.caPath, concurrency: concurrency,
                userAgent: userAgent, logger: logger, deadline: deadline?.end, bearer: bearer)
            let client = CardDAVClient(http: http, logger: logger)
            let remote = try prepareRemote(configuration.name, kind: .carddav, url: url)
            let info: AddressBookInfo
            if let bookURL = remote.bookURL {
                info = AddressBookInfo(
                    url: bookURL, displayName: nil, supportsSyncCollection: remote.capabilities.contains("sync"),
                    supportedVersions: remote.capabilities.contains("4.0") ? ["3.0", "4.0"] : ["3.0"])
            } else {
                info = try discoverBook(url, client: client, remote: configuration.name)
                var capabilities = info.supportsSyncCollection ? ["sync"] : []
                if info.supportedVersions.contains("4.0") { capabilities.append("4.0") }
                try store.setDiscovery(bookURL: info.url, capabilities: capabilities, remoteID: remote.id)
            }
            var retry = retry
            retry.deadline = deadline?.end
            let book = CardDAVAddressBook(
                name: configuration.name, book: info, client: client, retry: retry,
                concurrency: remote.writeConcurrency ?? concurrency, maxConcurrency: concurrency, logger: logger)
            return OpenedRemote(book: book, remote: remote)
        }
    }

    public static func makeHTTPClient(
        username: String, password: String, auth: RemoteSettings.AuthScheme, caFile: String?, caPath: String?,
        concurrency: Int, userAgent: String, logger: Logger, deadline: ContinuousClock.Instant? = nil,
        bearer: (any BearerTokens)? = nil
    ) throws -> HTTPClient {
        var configuration = HTTPConfiguration()
        configuration.userAgent = userAgent
        if let bearer {
            configuration.bearer = bearer
        } else {
            configuration.credentials = Credentials(username: username, password: password)
        }
        configuration.auth =
            switch auth {
            case .basic, .oauth: .basic
            case .digest: .digest
            case .automatic: .automatic
            }
        if caFile != nil || caPath != nil {
            configuration.caFile = caFile
            configuration.caPath = caPath
        }
        configuration.maxConcurrent = concurrency
        configuration.deadline = deadline
        return try HTTPClient(configuration, logger: logger)
    }

    /// The remote's row, created on first use; a changed URL or folder resets what was known about the old one.
    private func prepareRemote(_ name: String, kind: Remote.Kind, url: String) throws -> Remote {
        guard let remote = try store.remote(named: name) else {
            return try store.addRemote(name: name, kind: kind, url: url)
        }
        guard remote.url == url, remote.kind == kind else {
            logger.notice("Remote moved: starting afresh", metadata: ["remote.name": "\(name)"], source: Self.logSource)
            try store.resetRemote(id: remote.id, url: url)
            return try store.remote(id: remote.id) ?? remote
        }
        return remote
    }

    /// The one address book at `url`, or a clear error when there is none or several to choose from: what the URL
    /// is, and the books discovery found from there, whose URLs are what to configure.
    private func discoverBook(_ url: String, client: CardDAVClient, remote: String) throws -> AddressBookInfo {
        let found: Discovery
        do {
            found = try client.explore(url)
        } catch let error as CardDAVError {
            throw RemoteError(error)
        }
        let books = found.books
        if let exact = books.first(where: { DAVURL.sameResource($0.url, url) }) { return exact }
        switch found.start {
        case .collection, .resource, .notDAV:
            // A server's or an account's URL that leads to one address book is how a remote may be configured.
            if books.count == 1, let only = books.first { return only }
        case .addressBook, .missing, .calendar:
            break
        }
        throw RemoteError(.notAnAddressBook, Self.notAnAddressBook(url, found))
    }

    /// "URL is not an address book: nothing is there (404); it leads to 2 address books, set url to one of them:
    /// URL (Name), URL (Name)".
    static func notAnAddressBook(_ url: String, _ found: Discovery) -> String {
        let what = "\(url) is not an address book: \(found.startText)"
        guard !found.books.isEmpty else { return what + "; no address book was found from there" }
        let list = found.books.map { "\($0.url) (\($0.displayName ?? "no name"))" }.joined(separator: ", ")
        let count = found.books.count == 1 ? "1 address book" : "\(found.books.count) address books"
        return what + "; it leads to \(count), set url to \(found.books.count == 1 ? "it" : "one of them"): \(list)"
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Radicale CardDAV server for integration tests: on 127.0.0.1 at a free port, with basic auth
/// (htpasswd, plain), storage in a fresh temporary folder, stopped by PID when the object goes away.
///
/// It runs `<repo>/.venv/bin/python -m radicale` (`RADICALE_PYTHON` names another interpreter); `Deploy/test.sh`
/// creates that virtualenv.
public final class RadicaleServer {
    public static let username = "alice"
    public static let password = "secret-pw"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// How Radicale learns who is asking.
    public enum Authentication: Sendable {
        /// HTTP Basic against the `users` (an htpasswd file, plain): Radicale asks for the login itself.
        case htpasswd
        /// `[auth] type = http_x_remote_user`: the user a reverse proxy names in `X-Remote-User`, for a server that
        /// only the proxy reaches (`BearerCardDAVServer`: nginx admits a request only with a valid OAuth bearer
        /// token). Radicale then reads no Basic credentials at all (a request without the header is anonymous); the
        /// fixture's own `request`s, `createAddressBook` among them, send the header straight to Radicale instead.
        case reverseProxyHeader
    }

    /// "http://127.0.0.1:PORT/", or "https://..." with `tls`.
    public let baseURL: String
    /// Radicale's `[storage] filesystem_folder`; collections are under `collection-root/<user>/<name>/`.
    public let storageFolder: String
    public let port: Int
    /// Radicale's own TLS, when it serves HTTPS (see RadicaleServer+TLS.swift).
    public let tls: TLS?
    /// Everything Radicale logs; with `logRequests`, a line per request (method, path, user agent).
    public let logPath: String
    public let authentication: Authentication

    private let folder: TemporaryDirectory
    private let configPath: String
    private let python: String
    private var process: ChildProcess?

    /// Starts a server and waits until it accepts connections (20 s at most).
    public init(
        users: [String: String] = [RadicaleServer.username: RadicaleServer.password], tls: TLS? = nil,
        logRequests: Bool = false, authentication: Authentication = .htpasswd
    ) throws {
        self.tls = tls
        self.authentication = authentication
        python = try Self.findPython()
        folder = try TemporaryDirectory(prefix: "contactbox-radicale")
        let root = folder.path
        storageFolder = root + "/storage"
        configPath = root + "/config"
        logPath = root + "/radicale.log"
        port = Int(try freeLoopbackPort())
        baseURL = (tls == nil ? "http" : "https") + "://127.0.0.1:\(port)/"
        try FileManager.default.createDirectory(atPath: storageFolder, withIntermediateDirectories: true)
        let htpasswd = root + "/users"
        try users.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)\n" }.joined()
            .write(toFile: htpasswd, atomically: true, encoding: .utf8)
        try Self.configuration(
            port: port, storage: storageFolder, htpasswd: htpasswd, tls: tls, logRequests: logRequests,
            authentication: authentication
        )
        .write(toFile: configPath, atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
    }

    /// The process id while the server runs.
    public var processIdentifier: Int32? { process.map(\.pid) }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// "http://127.0.0.1:PORT/alice/contacts/" (the collection of `RadicaleServer.username`).
    public func addressBookURL(_ name: String = "contacts", user: String = RadicaleServer.username) -> String {
        baseURL + user + "/" + name + "/"
    }

    /// The folder that holds an address book's `.vcf` files.
    public func collectionFolder(_ name: String = "contacts", user: String = RadicaleServer.username) -> String {
        storageFolder + "/collection-root/" + user + "/" + name
    }

    /// Starts the server (again: on the same port and storage, so a client sees the server come back).
    public func start() throws {
        guard !isRunning else { return }
        process = try ChildProcess(
            path: python, arguments: ["-m", "radicale", "--config", configPath], logPath: logPath
        ).serving("Radicale (port \(port))", log: logTail) {
            loopbackAccepts(port: port)
        }
    }

    /// Stops the server by PID: SIGTERM, then SIGKILL after 5 s. Waits until the process is gone.
    public func stop() {
        process?.terminate()
        process = nil
    }

    /// Creates an address book of `user` with an extended MKCOL (RFC 5689) while the server runs, or as a folder
    /// with Radicale's `.Radicale.props` while it is stopped. With `.htpasswd`, `user`'s password must be
    /// `RadicaleServer.password`.
    public func createAddressBook(_ name: String = "contacts", user: String = RadicaleServer.username) throws {
        guard isRunning else {
            let folder = collectionFolder(name, user: user)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try #"{"tag": "VADDRESSBOOK"}"#.write(
                toFile: folder + "/.Radicale.props", atomically: true, encoding: .utf8)
            return
        }
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:mkcol xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">
              <D:set><D:prop>
                <D:resourcetype><D:collection/><C:addressbook/></D:resourcetype>
                <D:displayname>\(name)</D:displayname>
              </D:prop></D:set>
            </D:mkcol>
            """
        let url = addressBookURL(name, user: user)
        let response = try request("MKCOL", url, body: body, contentType: "application/xml", user: user)
        guard response.status == 201 else {
            throw Failure(description: "MKCOL \(url) answered \(response.status): \(response.body)")
        }
    }

    /// Writes cards straight into an address book's folder: fast, for large tests. Holds Radicale's storage lock
    /// (`.Radicale.lock`, flock) meanwhile, as its documentation asks of programs that change the storage, so
    /// it is safe while the server runs. File names must be plain (`[A-Za-z0-9._@+-]`, ending in `.vcf`).
    public func seedCards(_ cards: [(fileName: String, vcard: String)], book: String = "contacts") throws {
        let folder = collectionFolder(book)
        guard FileManager.default.fileExists(atPath: folder + "/.Radicale.props") else {
            throw Failure(description: "no address book \(book): call createAddressBook(\"\(book)\") first")
        }
        let lock = open(storageFolder + "/.Radicale.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw Failure(description: "cannot open Radicale's lock file: errno \(errno)") }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw Failure(description: "cannot lock Radicale's storage") }
        defer { flock(lock, LOCK_UN) }
        for card in cards {
            guard !card.fileName.contains("/"), !card.fileName.hasPrefix(".") else {
                throw Failure(description: "not a plain file name: \(card.fileName)")
            }
            try card.vcard.write(toFile: folder + "/" + card.fileName, atomically: false, encoding: .utf8)
        }
    }

    /// One HTTP request with curl as `username` (or without auth): the status and the body. With
    /// `.reverseProxyHeader`, the user goes in `X-Remote-User`, as the proxy would send it.
    public func request(
        _ method: String, _ url: String, body: String? = nil, contentType: String? = nil,
        headers: [String] = [], user: String? = RadicaleServer.username, password: String = RadicaleServer.password
    ) throws -> (status: Int, body: String) {
        let proxied = authentication == .reverseProxyHeader
        let response = try curlRequest(
            method, url, body: body, contentType: contentType,
            headers: headers + (proxied ? user.map { ["X-Remote-User: " + $0] } ?? [] : []),
            user: proxied ? nil : user.map { ($0, password) }, caFile: tls?.authority)
        return (response.status, response.body)
    }

    // MARK: - Setup

    public func logTail() -> String { ChildProcess.tail(of: logPath) }

    private static func configuration(
        port: Int, storage: String, htpasswd: String, tls: TLS?, logRequests: Bool, authentication: Authentication
    ) -> String {
        let auth =
            switch authentication {
            case .htpasswd:
                """
                type = htpasswd
                htpasswd_filename = \(htpasswd)
                htpasswd_encryption = plain
                """
            case .reverseProxyHeader: "type = http_x_remote_user"
            }
        return """
            [server]
            hosts = 127.0.0.1:\(port)
            \(tls.map(\.serverOptions) ?? "")

            [auth]
            \(auth)
            # No pause after a wrong password: tests of 401 handling should not wait.
            delay = 0

            [rights]
            type = owner_only

            [storage]
            filesystem_folder = \(storage)

            [web]
            type = none

            [logging]
            level = \(logRequests ? "info" : "warning")
            mask_passwords = True

            """
    }

    /// `RADICALE_PYTHON`, or the virtualenv's python next to Package.swift.
    private static func findPython() throws -> String {
        if let python = ProcessInfo.processInfo.environment["RADICALE_PYTHON"], !python.isEmpty { return python }
        let python = repositoryRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "no Radicale virtualenv at \(python): run Deploy/test.sh, which creates .venv")
        }
        return python
    }
}

@available(*, unavailable) extension RadicaleServer: Sendable {}

/// Radicale as one of the suites' `CardDAVTestServer`s: a server with the address book "contacts" of `alice`.
public final class RadicaleCardDAVServer: CardDAVTestServer {
    public let radicale: RadicaleServer

    public init() throws {
        radicale = try RadicaleServer()
        try radicale.createAddressBook()
    }

    public var kind: TestServerKind { .radicale }
    public var baseURL: String { radicale.baseURL }
    public var addressBookURL: String { radicale.addressBookURL() }
    public var username: String { RadicaleServer.username }
    public var password: String { RadicaleServer.password }
    public var requiresAuthentication: Bool { true }
    public var processIdentifier: Int32? { radicale.processIdentifier }
    public var isRunning: Bool { radicale.isRunning }
    public func stop() { radicale.stop() }
    public func logTail() -> String { radicale.logTail() }

    /// Straight into the collection's folder (Radicale checks every PUT's UID against the whole book: slow).
    public func seed(_ cards: [(fileName: String, vcard: String)]) throws {
        try radicale.seedCards(cards)
    }
}

@available(*, unavailable) extension RadicaleCardDAVServer: Sendable {}

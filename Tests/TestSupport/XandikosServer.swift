import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real Xandikos CardDAV server for the integration tests: `xandikos serve` from `<repo>/.venv` (Deploy/lib/venv.sh
/// pins 0.4.10) on 127.0.0.1 at a free port, its storage in a fresh temporary folder, stopped by PID.
///
/// Without authentication: Xandikos 0.4's only built-in login (`--htpasswd`) requires `--autocert`, HTTPS with a
/// self-signed certificate, and the project documents putting a reverse proxy in front for logins. The client's
/// credentials are simply never asked for. `--defaults` creates the principal `/user/` with the address book
/// `/user/contacts/addressbook/` (and a calendar, which discovery must pass over).
public final class XandikosServer: CardDAVTestServer {
    public let baseURL: String
    public let port: Int
    /// The storage folder (`-d`): one git repository per collection.
    public let storageFolder: String
    public var kind: TestServerKind { .xandikos }
    public var addressBookURL: String { baseURL + "user/contacts/addressbook/" }
    public var username: String { "user" }
    public var password: String { "no-password" }
    public var requiresAuthentication: Bool { false }

    private let folder: TemporaryDirectory
    private let logPath: String
    private let xandikos: String
    private var process: ChildProcess?

    /// Starts a server and waits until it accepts connections (30 s at most).
    public init() throws {
        xandikos = repositoryRoot + "/.venv/bin/xandikos"
        guard FileManager.default.isExecutableFile(atPath: xandikos) else {
            throw TestServerFailure("no Xandikos at \(xandikos): run Deploy/test.sh, which installs it into .venv")
        }
        folder = try TemporaryDirectory()
        storageFolder = try folder.folder("storage")
        logPath = folder.file("xandikos.log")
        port = Int(try freeLoopbackPort())
        baseURL = "http://127.0.0.1:\(port)/"
        try start()
    }

    deinit {
        stop()
    }

    public var processIdentifier: Int32? { process.map(\.pid) }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts the server (again: on the same port and storage).
    public func start() throws {
        guard !isRunning else { return }
        process = try ChildProcess(
            path: xandikos,
            arguments: [
                "serve", "-d", storageFolder, "--defaults", "-l", "127.0.0.1", "-p", String(port),
                "--no-detect-systemd", "--state-dir", folder.file("state"),
            ],
            logPath: logPath
        ).serving("Xandikos (port \(port))", seconds: 30, log: logTail) {
            loopbackAccepts(port: port)
        }
    }

    public func stop() {
        process?.terminate()
        process = nil
    }

    public func logTail() -> String { ChildProcess.tail(of: logPath) }
}

@available(*, unavailable) extension XandikosServer: Sendable {}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private Cyrus IMAP 3.6 instance serving CardDAV (Debian's `cyrus-imapd` with `cyrus-caldav`, the server Fastmail
/// runs) for the integration tests, on 127.0.0.1 at a free port. Deploy/test.sh installs the packages and leaves the
/// system-wide service stopped and disabled; this instance is the test's own:
///
/// - one data folder under /tmp holds its `imapd.conf` and `cyrus.conf`, databases, spool, sockets and its SASL
///   database (`sasldb`, made with `saslpasswd2`), owned by the `cyrus` user;
/// - `master -C imapd.conf -M cyrus.conf` starts as root (it must: it switches to `cyrus`) and leads a process group
///   of its own, which `stop()` signals as a whole: master, its `httpd` and `imapd` children;
/// - the user's mailbox (`user/alice`) is created over IMAP on the instance's Unix socket, as the admin;
/// - the default address book `/dav/addressbooks/user/alice/Default/` appears on the user's first authenticated DAV
///   request, which the set-up makes.
///
/// Cyrus logs through syslog only; `logTail()` is what master itself wrote (`-L`) and the configuration.
public final class CyrusServer: CardDAVTestServer {
    public static let master = "/usr/lib/cyrus/bin/master"
    static let saslpasswd2 = "/usr/sbin/saslpasswd2"
    static let adminName = "cyrus"
    static let adminPassword = "cyrus-admin-pw"

    public let baseURL: String
    public let port: Int
    public let username: String
    public let password: String
    /// The instance's folder: configuration, databases, spool, sockets.
    public let dataFolder: String
    public var kind: TestServerKind { .cyrus }
    public var addressBookURL: String { baseURL + "dav/addressbooks/user/\(username)/Default/" }
    public var requiresAuthentication: Bool { true }

    private let folder: TemporaryDirectory
    private let logPath: String
    private var process: ChildProcess?

    /// Starts an instance with one user and its default address book (30 s at most).
    public init(username: String = "alice", password: String = "secret-pw") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.master) else {
            throw TestServerFailure("no Cyrus IMAP at \(Self.master): run Deploy/test.sh, which installs cyrus-imapd")
        }
        guard getuid() == 0 else {
            throw TestServerFailure("Cyrus's master must start as root (it switches to the cyrus user)")
        }
        guard let account = getpwnam("cyrus") else {
            throw TestServerFailure("no user cyrus: is cyrus-common installed? (Deploy/test.sh installs it)")
        }
        let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
        self.username = username
        self.password = password
        folder = try TemporaryDirectory()
        // The cyrus user must reach the data folder: mkdtemp's folder is root's, 0700.
        chmod(folder.path, 0o755)
        dataFolder = try folder.folder("cyrus")
        logPath = folder.file("master-start.log")
        port = Int(try freeLoopbackPort())
        baseURL = "http://127.0.0.1:\(port)/"

        for name in ["config", "spool", "proc", "lock", "socket", "sieve"] { _ = try folder.folder("cyrus/" + name) }
        try imapdConfiguration().write(toFile: dataFolder + "/imapd.conf", atomically: false, encoding: .utf8)
        try cyrusConfiguration().write(toFile: dataFolder + "/cyrus.conf", atomically: false, encoding: .utf8)
        try Self.addSASLUser(username, password: password, database: dataFolder + "/sasldb")
        try Self.addSASLUser(Self.adminName, password: Self.adminPassword, database: dataFolder + "/sasldb")
        try Self.changeOwner(dataFolder, uid: uid, gid: gid)

        try start()
        do {
            try createMailbox()
            try createDefaultAddressBook()
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    public var processIdentifier: Int32? { process.map(\.pid) }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts master and waits for its HTTP port and its IMAP socket.
    public func start() throws {
        guard !isRunning else { return }
        process = try ChildProcess(
            path: Self.master,
            arguments: [
                "-C", dataFolder + "/imapd.conf", "-M", dataFolder + "/cyrus.conf", "-p", dataFolder + "/master.pid",
                "-L", dataFolder + "/master.log",
            ],
            logPath: logPath, newProcessGroup: true
        ).serving("Cyrus (port \(port))", seconds: 30, log: logTail) {
            loopbackAccepts(port: port) && access(dataFolder + "/socket/imap", F_OK) == 0
        }
    }

    /// SIGTERM to master's whole process group, then SIGKILL after 5 s; waits until master is gone.
    public func stop() {
        process?.terminate()
        process = nil
    }

    public func logTail() -> String {
        let start = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let master = (try? String(contentsOfFile: dataFolder + "/master.log", encoding: .utf8)) ?? ""
        return "master's output (Cyrus logs to syslog): " + String((start + master).suffix(2000))
    }

    // MARK: - Set-up

    private func imapdConfiguration() -> String {
        """
        # A private Cyrus instance for ContactBox's tests: everything under \(dataFolder).
        configdirectory: \(dataFolder)/config
        partition-default: \(dataFolder)/spool
        proc_path: \(dataFolder)/proc
        mboxname_lockpath: \(dataFolder)/lock
        sievedir: \(dataFolder)/sieve
        lmtpsocket: \(dataFolder)/socket/lmtp
        idlesocket: \(dataFolder)/socket/idle
        notifysocket: \(dataFolder)/socket/notify
        servername: localhost
        admins: \(Self.adminName)
        allowplaintext: yes
        sasl_pwcheck_method: auxprop
        sasl_auxprop_plugin: sasldb
        sasl_sasldb_path: \(dataFolder)/sasldb
        sasl_mech_list: PLAIN LOGIN
        httpmodules: carddav
        syslog_prefix: contactbox-test-cyrus

        """
    }

    private func cyrusConfiguration() -> String {
        """
        START {
          recover cmd="ctl_cyrusdb -r -C \(dataFolder)/imapd.conf"
        }
        SERVICES {
          imap cmd="imapd -C \(dataFolder)/imapd.conf" listen="\(dataFolder)/socket/imap" prefork=0
          http cmd="httpd -C \(dataFolder)/imapd.conf" listen="127.0.0.1:\(port)" prefork=0
        }
        EVENTS {
        }
        DAEMON {
        }

        """
    }

    /// `saslpasswd2 -c -p -f DATABASE -u localhost NAME`, the password on its standard input.
    private static func addSASLUser(_ name: String, password: String, database: String) throws {
        guard FileManager.default.isExecutableFile(atPath: saslpasswd2) else {
            throw TestServerFailure("no \(saslpasswd2): run Deploy/test.sh, which installs sasl2-bin")
        }
        let outcome = try ChildProcess.run(
            saslpasswd2, ["-c", "-p", "-f", database, "-u", "localhost", name], input: Array(password.utf8))
        guard outcome.status == 0 else {
            throw TestServerFailure("saslpasswd2 for \(name) failed (\(outcome.status)): \(outcome.stderr)")
        }
    }

    private static func changeOwner(_ path: String, uid: uid_t, gid: gid_t) throws {
        guard lchown(path, uid, gid) == 0 else {
            throw TestServerFailure("chown \(path) to cyrus failed: errno \(errno)")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        for name in directoryEntries(path) { try changeOwner(path + "/" + name, uid: uid, gid: gid) }
    }

    /// `CREATE user/NAME` over IMAP on the instance's Unix socket, logged in as the admin.
    private func createMailbox() throws {
        let session = try IMAPSocketSession(path: dataFolder + "/socket/imap")
        try session.command("LOGIN \(Self.adminName) \(Self.adminPassword)")
        try session.command("CREATE user/\(username)")
        try? session.command("LOGOUT")
    }

    /// The user's first authenticated DAV request makes the default address book; check that it did.
    private func createDefaultAddressBook() throws {
        let home = baseURL + "dav/addressbooks/user/\(username)/"
        let propfind =
            #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/></D:prop></D:propfind>"#
        let first = try request(
            "PROPFIND", home, body: propfind, contentType: "application/xml", headers: ["Depth: 1"])
        guard first.status == 207 else {
            throw TestServerFailure("Cyrus: PROPFIND \(home) answered \(first.status): \(first.body)\n\(logTail())")
        }
        let book = try request(
            "PROPFIND", addressBookURL, body: propfind, contentType: "application/xml", headers: ["Depth: 0"])
        guard book.status == 207, book.body.contains("addressbook") else {
            throw TestServerFailure("Cyrus made no default address book: \(book.status): \(book.body)")
        }
    }
}

@available(*, unavailable) extension CyrusServer: Sendable {}

/// IMAP over a Unix socket, just enough to run tagged commands and see them succeed.
final class IMAPSocketSession {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var tag = 0

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerFailure("socket(AF_UNIX): errno \(errno)") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw TestServerFailure("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw TestServerFailure("connect to Cyrus's IMAP socket \(path): errno \(error)")
        }
        let greeting = try readLine()
        guard greeting.hasPrefix("* OK") else {
            close(descriptor)
            throw TestServerFailure("Cyrus's IMAP greeting: \(greeting)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends one command and reads up to its tagged answer, which must be OK.
    func command(_ text: String) throws {
        tag += 1
        let tagged = "c\(tag)"
        let line = Array("\(tagged) \(text)\r\n".utf8)
        let sent = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == line.count else { throw TestServerFailure("IMAP send failed: errno \(errno)") }
        while true {
            let answer = try readLine()
            guard answer.hasPrefix(tagged + " ") else { continue }
            guard answer.hasPrefix(tagged + " OK") else {
                let shown = text.hasPrefix("LOGIN") ? "LOGIN" : text
                throw TestServerFailure("Cyrus IMAP \(shown): \(answer)")
            }
            return
        }
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                throw TestServerFailure("Cyrus's IMAP socket closed or timed out (errno \(errno))")
            }
        }
    }
}

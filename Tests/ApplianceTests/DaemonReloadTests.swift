import Config
import FrontPanel
import Glibc
import Logging
import TestSupport
import Testing

@testable import Appliance

/// SIGHUP runs the check `check-config` and the start run: what they refuse leaves the running configuration in
/// place, and the page's events say why. `.timeLimit` only guards against a reader that would wait on a FIFO.
@Suite("The daemon's reload on SIGHUP", .timeLimit(.minutes(5)))
struct DaemonReloadTests {
    let directory: TemporaryDirectory
    let configPath: String
    let passwordPath: String
    let daemon: Daemon

    init() throws {
        directory = try TemporaryDirectory()
        configPath = directory.file("contactbox.toml")
        passwordPath = directory.file("nas.password")
        mkdir(directory.file("nas"), 0o700)
        try Self.save(passwordPath, "S3cr3t\n", mode: 0o600)
        try Self.save(configPath, Self.config(in: directory, password: passwordPath, remotes: 1))
        let configuration = try Configuration.load(path: configPath)
        daemon = try Daemon(
            configuration: configuration,
            options: .init(configPath: configPath, storePath: nil, version: "t", build: "t"),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, openPanel: { _ in (SimulatedPanel(), nil) }
        )
    }

    /// A folder remote and, when `remotes` is 2 or more, CardDAV remotes whose password is in `password`.
    static func config(in directory: TemporaryDirectory, password: String, remotes: Int) -> String {
        var text = """
            store = "\(directory.file("contacts.sqlite"))"
            [[remote]]
            name = "nas"
            kind = "vdir"
            folder = "\(directory.file("nas"))"

            """
        for index in 1..<max(remotes, 1) {
            text += """
                [[remote]]
                name = "cloud-\(index)"
                kind = "carddav"
                url = "https://contacts.example.org/"
                username = "ada"
                password_file = "\(password)"

                """
        }
        return text
    }

    static func save(_ path: String, _ text: String, mode: mode_t = 0o644) throws {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    var events: [String] { daemon.board.snapshot().events.map(\.message) }

    @Test("a password file holding a NUL byte leaves the old configuration, and the page says which file and why")
    func nulPasswordKeepsOldConfiguration() throws {
        let before = daemon.configuration
        try Self.save(passwordPath, "S3cr3t\0bar\n", mode: 0o600)
        try Self.save(configPath, Self.config(in: directory, password: passwordPath, remotes: 2))
        daemon.reload()
        #expect(daemon.configuration == before)
        let refused = try #require(events.first { $0.contains("Configuration not reloaded") })
        #expect(refused.contains(passwordPath), "\(refused)")
        #expect(refused.contains("NUL byte"), "\(refused)")
        #expect(!refused.contains("S3cr3t"), "\(refused)")
        #expect(!events.contains { $0.contains("Configuration reloaded") })
    }

    @Test("a FIFO as a password file is refused without waiting on it, and the old configuration stays")
    func fifoPasswordKeepsOldConfiguration() throws {
        let before = daemon.configuration
        unlink(passwordPath)
        #expect(mkfifo(passwordPath, 0o600) == 0)
        try Self.save(configPath, Self.config(in: directory, password: passwordPath, remotes: 2))
        daemon.reload()
        #expect(daemon.configuration == before)
        let refused = try #require(events.first { $0.contains("Configuration not reloaded") })
        #expect(refused.contains(passwordPath), "\(refused)")
        #expect(refused.contains("FIFO"), "\(refused)")
    }

    @Test("too many remotes leave the old configuration, and the page says how many are allowed")
    func tooManyRemotesKeepOldConfiguration() throws {
        let before = daemon.configuration
        try Self.save(
            configPath,
            Self.config(in: directory, password: passwordPath, remotes: Configuration.remoteLimit + 1))
        daemon.reload()
        #expect(daemon.configuration == before)
        let refused = try #require(events.first { $0.contains("Configuration not reloaded") })
        #expect(refused.contains("at most \(Configuration.remoteLimit)"), "\(refused)")
    }

    @Test("a configuration that passes the check is taken, and the page says so")
    func goodConfigurationIsTaken() throws {
        try Self.save(configPath, Self.config(in: directory, password: passwordPath, remotes: 2))
        daemon.reload()
        #expect(daemon.configuration.remotes.map(\.name) == ["nas", "cloud-1"])
        #expect(events.contains { $0.contains("Configuration reloaded (remotes 2)") }, "\(events)")
        _ = daemon.worker.stop(waitingAtMost: .seconds(5))
    }
}

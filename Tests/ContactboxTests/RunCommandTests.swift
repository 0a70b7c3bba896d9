import Foundation
import TestSupport
import Testing

/// `contactbox run` as systemd runs it: the real binaries, a folder remote, the status page on loopback.
@Suite("The daemon, end to end", .timeLimit(.minutes(10)))
struct RunCommandTests {
    /// Asks `/api/status` until `condition` holds, for at most `seconds`; the last answer.
    func waitForStatus(port: UInt16, seconds: Double = 20, until condition: (String) -> Bool) -> String {
        var last = ""
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            last = (try? HTTPTestClient.request(port: port, path: "/api/status"))?.body ?? ""
            if condition(last) { return last }
            usleep(100_000)
        }
        return last
    }

    func makeConfig(_ workspace: Workspace, port: UInt16) throws -> String {
        try workspace.file(
            "contactbox.toml",
            """
            store = "\(workspace.db)"
            \(Workspace.daemonSettings(port: port))
            [[remote]]
            name = "cloud"
            kind = "vdir"
            folder = "\(workspace.path)/cloud"
            create_folder = true
            """)
    }

    func start(_ config: String, log: String) throws -> ChildProcess {
        try ChildProcess(path: contactboxBinary, arguments: ["run", "--config", config], logPath: log)
    }

    /// SIGTERM as systemd sends it, and SIGKILL after the unit's TimeoutStopSec (10 s); the exit status (137 when
    /// it had to be killed).
    func stop(_ daemon: ChildProcess) -> Int32 {
        daemon.terminate(grace: 10)
        return daemon.waitForExit()
    }

    @Test(
        "it syncs at start-up, syncs when the page asks, keeps its configuration on a bad reload, and stops on SIGTERM")
    func lifecycle() throws {
        let workspace = try Workspace()
        let cards = try workspace.file("in.vcf", card("a", "Ada Lovelace") + card("b", "Grace Hopper"))
        #expect(try contactbox(["import", "--db", workspace.db, cards]).status == 0)
        let port = try freeLoopbackPort()
        let config = try makeConfig(workspace, port: port)
        let log = workspace.path + "/daemon.log"
        let daemon = try start(config, log: log)
        defer { _ = stop(daemon) }

        let idle = waitForStatus(port: port) {
            $0.contains("\"state\":\"idle\"") && $0.contains("\"last_result\":\"ok\"")
        }
        #expect(idle.contains("\"contacts\":2"), "\(idle)")
        #expect(idle.contains("\"uploaded\":2"), "\(idle)")
        // The log feeds the page's events: the start and the remote's result, in the journal's words.
        #expect(idle.contains("ContactBox started (remotes 1"), "\(idle)")
        #expect(idle.contains("Remote synced (name cloud, counts 2 up, 0 down"), "\(idle)")
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.path + "/cloud")
        #expect(files.sorted() == ["a.vcf", "b.vcf"])

        // A contact added in the cloud comes down when the page asks for a sync.
        _ = try workspace.file("cloud/c.vcf", card("c", "Alan Turing"))
        let accepted = try HTTPTestClient.request(port: port, method: "POST", path: "/api/sync")
        #expect(accepted.status == 202, "\(accepted.body)")
        let synced = waitForStatus(port: port) { $0.contains("\"contacts\":3") }
        #expect(synced.contains("\"contacts\":3"), "\(synced)")
        #expect(try contactbox(["show", "--db", workspace.db, "c"]).stdout.contains("Alan Turing"))

        // A broken configuration on SIGHUP: the old one stays, and the page says why.
        _ = try workspace.file("contactbox.toml", "store = \n")
        kill(daemon.pid, SIGHUP)
        let kept = waitForStatus(port: port) { $0.contains("Configuration not reloaded") }
        #expect(kept.contains("Configuration not reloaded"), "\(kept)")
        #expect(daemon.isRunning)

        #expect(stop(daemon) == 0)
        let output = try String(contentsOfFile: log, encoding: .utf8)
        #expect(output.contains("Stopped"), "\(output)")
        #expect(output.contains("Status page: sync now"), "\(output)")
    }

    @Test("a FIFO as a password file on SIGHUP is refused without waiting on it: the old configuration keeps syncing")
    func fifoPasswordOnReload() throws {
        let workspace = try Workspace()
        let port = try freeLoopbackPort()
        let config = try makeConfig(workspace, port: port)
        let daemon = try start(config, log: workspace.path + "/daemon.log")
        defer { _ = stop(daemon) }
        _ = waitForStatus(port: port) { $0.contains("\"last_result\":\"ok\"") }
        let password = workspace.path + "/cloud.password"
        #expect(mkfifo(password, 0o600) == 0)
        let text = try String(contentsOfFile: config, encoding: .utf8)
        _ = try workspace.file(
            "contactbox.toml",
            text + """

                [[remote]]
                name = "icloud"
                kind = "carddav"
                url = "https://contacts.icloud.com/"
                username = "ada"
                password_file = "\(password)"
                """)
        kill(daemon.pid, SIGHUP)
        let kept = waitForStatus(port: port) { $0.contains("Configuration not reloaded") }
        #expect(kept.contains("is a FIFO (named pipe), not a regular file"), "\(kept)")
        #expect(!kept.contains("Configuration reloaded"), "\(kept)")
        // Still the old configuration: one remote, and a sync the page asks for still works.
        let accepted = try HTTPTestClient.request(port: port, method: "POST", path: "/api/sync")
        #expect(accepted.status == 202, "\(accepted.body)")
        #expect(daemon.isRunning)
        #expect(stop(daemon) == 0)
    }

    @Test("a board file that cannot be opened is a clear error, and the daemon still syncs and serves its page")
    func missingBoard() throws {
        let workspace = try Workspace()
        let port = try freeLoopbackPort()
        var text = try String(contentsOfFile: try makeConfig(workspace, port: port), encoding: .utf8)
        text = text.replacingOccurrences(of: "board = \"simulated\"", with: "board = \"raspberry-pi-4\"")
        let config = try workspace.file("contactbox.toml", text)
        let log = workspace.path + "/daemon.log"
        let daemon = try start(config, log: log)
        defer { _ = stop(daemon) }
        let status = waitForStatus(port: port) { $0.contains("\"last_result\":\"ok\"") }
        #expect(status.contains("Front panel unavailable"), "\(status)")
        #expect(status.contains("raspberry-pi-4"), "\(status)")
        #expect(stop(daemon) == 0)
    }
}

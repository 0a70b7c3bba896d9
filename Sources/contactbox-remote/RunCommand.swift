import Appliance
import ArgumentParser
import CLISupport
import Config
import Glibc
import Logging

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the appliance: sync on a schedule and on the button, drive the LEDs, serve the status page.",
        discussion: """
            The long-running service (systemd starts it as contactbox.service). It syncs every remote at start-up, \
            every [sync] interval, with a full comparison every full_check, when the button is pressed or the \
            status page asks, and when the network comes back after an outage. The LEDs and the status page \
            ([status] listen, default 0.0.0.0:8080) show what it is doing.

            With [panel] board = "simulated" and a terminal, the front panel is drawn in the terminal and keys \
            stand in for the button: s presses it, l holds it (confirm held deletions), q stops.

            Signals: SIGTERM or SIGINT stop it after the current chunk (exit 0 within 5 s); SIGHUP reloads the \
            configuration, keeping the old one if the new one has a problem. Under systemd it reports readiness \
            and status and pings the watchdog (Type=notify, WatchdogSec=). Logs go to stderr with journald \
            priority prefixes; CONTACTBOX_LOG_LEVEL=debug shows every request.

            Board files are looked up in $CONTACTBOX_BOARDS, else \(BoardConfiguration.installedDirectory).

            \(Exit.help("run"))
            """)

    @OptionGroup var store: StoreOptions

    func run() throws {
        let config = store.config
        let (configuration, settingsProblems) = try config.check()
        var handler = JournalLogHandler(level: .info)
        if let level = getenv("CONTACTBOX_LOG_LEVEL").flatMap({ Logger.Level(rawValue: String(cString: $0)) }) {
            handler.logLevel = level
        }
        let logger = Logger(label: "contactbox") { _ in handler }
        let options = Daemon.Options(
            configPath: config.path, storePath: try store.path(configuration: configuration),
            version: contactboxVersion,
            build: buildID)
        let daemon: Daemon
        do {
            daemon = try Daemon(
                configuration: configuration, settingsProblems: settingsProblems, options: options, logger: logger)
        } catch {
            Terminal.error(error.message)
            throw Exit.osError
        }
        let status = daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}

import Logging
import SystemSupport

/// Keeps the `avahi-publish` processes of a ``NetworkNamePlan`` running: starts what is wanted, stops (by PID:
/// SIGTERM, then reaped) what no longer is, and starts again, after the plan's growing wait, a process that ended by
/// itself. Used by one thread (``NetworkNamePublisher``'s); the tests drive it with a fake spawner and their own
/// clock, without threads or sleeping.
final class NetworkNameSupervisor {
    typealias Command = NetworkNamePlan.Command

    private struct Running {
        var child: any SpawnedChild
        var startedAt: Int64
    }

    private struct Waiting {
        var startAt: Int64
        var failures: Int
    }

    let program: String
    private let spawner: any ChildSpawner
    private let logger: Logger
    private(set) var wanted: [Command] = []
    private var running: [Command: Running] = [:]
    private var waiting: [Command: Waiting] = [:]
    /// The program is not installed: nothing is started until ``retry()`` (a reload), so a missing package costs
    /// one warning, not one a second.
    private(set) var programMissing = false
    /// How long a process without a pidfd (an old kernel, a filter that refuses pidfd_open) goes unlooked at.
    static let unwatchedCheck = Duration.seconds(10)
    /// How long a process that is no longer wanted gets to withdraw its records after SIGTERM before SIGKILL.
    static let stopGrace = Duration.seconds(1)

    init(program: String = "avahi-publish", spawner: any ChildSpawner, logger: Logger) {
        self.program = program
        self.spawner = spawner
        self.logger = logger
    }

    deinit { stopAll(before: monotonicMillis() + Self.stopGrace.wholeMilliseconds) }

    /// The PIDs of the running processes, by command.
    var pids: [Command: Int32] { running.mapValues(\.child.pid) }

    /// When a process that ended is due to start again, by command.
    var restarts: [Command: Int64] { waiting.mapValues(\.startAt) }

    /// What poll(2) should watch: each process's end and its standard error.
    var descriptors: [Int32] { running.values.flatMap(\.child.descriptors) }

    /// The processes that should run from now on; those no longer wanted are stopped at once (waiting at most
    /// ``stopGrace`` for them), the new ones are started by the next ``step(at:)``.
    func want(_ commands: [Command]) {
        guard commands != wanted else { return }
        wanted = commands
        let keep = Set(commands)
        let leaving = running.keys.filter { !keep.contains($0) }
        for command in leaving { running[command]?.child.askToStop() }
        let deadline = monotonicMillis() + Self.stopGrace.wholeMilliseconds
        for command in leaving {
            guard let child = running.removeValue(forKey: command)?.child else { continue }
            child.reap(before: deadline)
            log(child.takeOutput(), of: command)
            logger.info("Stopped publishing", metadata: ["name.command": "\(command)", "name.pid": "\(child.pid)"])
        }
        for command in waiting.keys where !keep.contains(command) { waiting[command] = nil }
    }

    /// Tries the program again after it was missing: the household may have installed it since.
    func retry() {
        programMissing = false
    }

    /// Reaps the processes that ended (each to start again after its wait), starts those wanted and due; returns
    /// when it must look again without a descriptor waking it (monotonic milliseconds), or nil.
    func step(at now: Int64) -> Int64? {
        for (command, entry) in running {
            log(entry.child.takeOutput(), of: command)
            guard let status = entry.child.hasEnded() else { continue }
            running[command] = nil
            let earlier = waiting[command]?.failures ?? 0
            let (wait, failures) = NetworkNamePlan.restart(
                ran: .milliseconds(now - entry.startedAt), earlierFailures: earlier)
            waiting[command] = Waiting(startAt: now + wait.wholeMilliseconds, failures: failures)
            logger.warning(
                "avahi-publish ended by itself; started again in \(wait.wholeSecondsRoundingUp) s",
                metadata: [
                    "name.command": "\(command)", "name.pid": "\(entry.child.pid)",
                    "name.status": "\(describeWaitStatus(status))",
                ])
        }
        for command in wanted where running[command] == nil && !programMissing {
            if let due = waiting[command]?.startAt, due > now { continue }
            start(command, at: now)
        }
        var next = waiting.values.map(\.startAt).filter { $0 > now }.min()
        if !programMissing, running.values.contains(where: { $0.child.descriptors.count < 2 }) {
            next = min(next ?? .max, now + Self.unwatchedCheck.wholeMilliseconds)
        }
        return next
    }

    private func start(_ command: Command, at now: Int64) {
        switch spawner.spawn(program, command.arguments) {
        case .success(let child):
            running[command] = Running(child: child, startedAt: now)
            logger.info("Publishing", metadata: ["name.command": "\(command)", "name.pid": "\(child.pid)"])
        case .failure(.missing(let why)):
            programMissing = true
            waiting = [:]
            logger.warning(
                """
                The box's name is not published on the network: avahi-publish cannot be started. Install the Debian \
                package avahi-utils (sudo apt install avahi-utils); a reload or a restart of the service tries again
                """,
                metadata: ["name.error": "\(why)"])
        case .failure(.failed(let why)):
            let (wait, failures) = NetworkNamePlan.restart(
                ran: .zero, earlierFailures: waiting[command]?.failures ?? 0)
            waiting[command] = Waiting(startAt: now + wait.wholeMilliseconds, failures: failures)
            logger.warning(
                "avahi-publish cannot be started; tried again in \(wait.wholeSecondsRoundingUp) s",
                metadata: ["name.command": "\(command)", "name.error": "\(why)"])
        }
    }

    /// Stops every process, waiting until `deadline` (monotonic milliseconds) at most; nothing starts again until
    /// ``want(_:)`` asks.
    func stopAll(before deadline: Int64) {
        wanted = []
        waiting = [:]
        for entry in running.values { entry.child.askToStop() }
        for (command, entry) in running {
            entry.child.reap(before: deadline)
            log(entry.child.takeOutput(), of: command)
        }
        running = [:]
    }

    /// What avahi-publish said: "Established under name ..." (info), a name collision or a failure (warning).
    private func log(_ lines: [String], of command: Command) {
        for line in lines {
            let trouble = ["collision", "conflict", "fail", "error"].contains { line.lowercased().contains($0) }
            logger.log(
                level: trouble ? .warning : .info, "avahi-publish: \(line)",
                metadata: ["name.command": "\(command)"])
        }
    }
}

@available(*, unavailable) extension NetworkNameSupervisor: Sendable {}

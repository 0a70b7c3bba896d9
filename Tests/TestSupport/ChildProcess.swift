import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawnp(3), with every signal unblocked and at its default action, and reaped
/// by its PID.
///
/// Foundation's `Process` passes on the signal mask of the thread that starts it, and Swift Testing runs tests on
/// Dispatch worker threads, which block SIGTERM: a server started that way ignores SIGTERM and has to be killed.
public final class ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let pid: pid_t
    public private(set) var exitStatus: Int32?
    /// Whether the process leads a process group of its own, which `terminate` signals as a whole.
    public let leadsProcessGroup: Bool

    /// Starts `path` with `arguments` (not including argv[0]), standard input from `inputPath` (/dev/null), standard
    /// output appended to `logPath` and standard error too, or to `errorPath`. `environment` is added to this
    /// process's. With `newProcessGroup`, the process leads a new process group (its id is the pid), and `terminate`
    /// signals the whole group: for servers that fork workers (Cyrus's master).
    public init(
        path: String, arguments: [String], logPath: String, errorPath: String? = nil,
        inputPath: String = "/dev/null", environment: [String: String] = [:], newProcessGroup: Bool = false
    ) throws {
        leadsProcessGroup = newProcessGroup
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var inherited: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let variable = entry.pointee {
            let name = String(cString: variable).prefix { $0 != "=" }
            if environment[String(name)] == nil { inherited.append(strdup(variable)) }
            entry += 1
        }
        let envp = inherited + environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid = pid_t()
        let result = posix_spawnp(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// Whether the process still runs; reaps it once it has exited.
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return true }
        // ECHILD: someone else reaped it; it is gone all the same.
        exitStatus = result == pid ? status : -1
        return false
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns once the process is gone and reaped. A group leader's
    /// whole group gets the signals, and whatever of the group outlives the leader gets SIGKILL.
    public func terminate(grace: Double = 5) {
        guard isRunning else { return }
        let target = leadsProcessGroup ? -pid : pid
        // Workers that outlive the leader: the group id stays theirs until the last one exits.
        defer { if leadsProcessGroup { kill(-pid, SIGKILL) } }
        kill(target, SIGTERM)
        var waited = 0.0
        while isRunning, waited < grace {
            usleep(10_000)
            waited += 0.01
        }
        guard isRunning else { return }
        kill(target, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        exitStatus = status
    }

    /// Waits for the process to end; its exit status, or 128 + the signal that ended it (as a shell reports it).
    public func waitForExit() -> Int32 {
        if exitStatus == nil {
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
            exitStatus = result == pid ? status : -1
        }
        let status = exitStatus ?? -1
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    deinit {
        terminate()
    }
}

@available(*, unavailable) extension ChildProcess: Sendable {}

extension ChildProcess {
    /// What a command printed, and how it ended.
    public struct Outcome {
        /// The exit status, or 128 + the signal that ended it.
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs a command to its end with `input` on its standard input. Input and output go through files, never
    /// pipes: a large output cannot fill a pipe and block the child while nobody reads it.
    public static func run(
        _ path: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]
    ) throws -> Outcome {
        let folder = try TemporaryDirectory(prefix: "contactbox-run")
        let (inputPath, outPath, errPath) = (folder.file("in"), folder.file("out"), folder.file("err"))
        guard let file = fopen(inputPath, "wb") else { throw Failure(description: "cannot write \(inputPath)") }
        let written = fwrite(input, 1, input.count, file)
        fclose(file)
        guard written == input.count else { throw Failure(description: "cannot write \(inputPath)") }
        let child = try ChildProcess(
            path: path, arguments: arguments, logPath: outPath, errorPath: errPath, inputPath: inputPath,
            environment: environment)
        let status = child.waitForExit()
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return Outcome(status: status, stdout: text(outPath), stderr: text(errPath))
    }

    /// The process once it serves (``waitUntilServing(_:seconds:log:ready:)``); stopped again when it does not.
    public func serving(
        _ name: String, seconds: Double = 20, log: () -> String, ready: () -> Bool
    ) throws(TestServerFailure) -> ChildProcess {
        do {
            try waitUntilServing(name, seconds: seconds, log: log, ready: ready)
        } catch {
            terminate()
            throw error
        }
        return self
    }

    /// The last 2,000 characters of a server's log file, for a failure's message.
    public static func tail(of path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(2000))
    }

    /// Waits until `ready()` (a server answering on its port), polling every 50 ms; fails, saying which and with
    /// `log()`'s tail, when the process exits first or `seconds` pass. The caller stops the process on a failure.
    public func waitUntilServing(
        _ name: String, seconds: Double, log: () -> String, ready: () -> Bool
    ) throws(TestServerFailure) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !ready() {
            guard isRunning else { throw TestServerFailure("\(name) exited at start: \(log())") }
            guard ContinuousClock.now < deadline else {
                throw TestServerFailure("\(name) did not answer within \(Int(seconds)) s: \(log())")
            }
            usleep(50_000)
        }
    }
}

import CLinux
import Glibc
import SystemSupport

/// A process the daemon started and must stop: by its PID, never by name.
protocol SpawnedChild: AnyObject {
    var pid: pid_t { get }
    /// Descriptors that poll(2) finds readable when the child has news: it ended (a pidfd), or it wrote to its
    /// standard error. Empty when there is no such descriptor: the owner then looks at ``hasEnded()`` on a timer.
    var descriptors: [Int32] { get }
    /// Reaps the child if it has ended: its wait status (waitpid(2)), or nil while it runs. Never blocks.
    func hasEnded() -> Int32?
    /// Complete lines the child wrote to its standard error since the last call (whatever was there when it ended
    /// included). Never blocks.
    func takeOutput() -> [String]
    /// SIGTERM (if it still runs), without waiting.
    func askToStop()
    /// Waits until `deadline` (monotonic milliseconds) for the child to end, then SIGKILL, and reaps it; returns
    /// its wait status.
    @discardableResult func reap(before deadline: Int64) -> Int32
}

/// Starts a program.
protocol ChildSpawner {
    /// Starts `program` (looked up in PATH when it holds no `/`) with `arguments`.
    func spawn(_ program: String, _ arguments: [String]) -> Result<any SpawnedChild, SpawnFailure>
}

/// Why a program did not start.
enum SpawnFailure: Error, Equatable {
    /// It is not installed (ENOENT), or not executable (EACCES): starting it again will not help.
    case missing(String)
    /// Anything else (out of memory, of processes, of descriptors): worth another try later.
    case failed(String)
}

/// posix_spawn(3), no shell: standard input and output from and to /dev/null, standard error into a pipe the
/// owner reads (the child's complaints reach the log), every signal unblocked and at its default action (the
/// daemon blocks SIGTERM in every thread for its signalfd, and a child would inherit that mask and ignore SIGTERM),
/// and a small fixed environment (`LC_ALL=C`: messages in English, as the log reads them).
struct PosixSpawner: ChildSpawner {
    func spawn(_ program: String, _ arguments: [String]) -> Result<any SpawnedChild, SpawnFailure> {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe2(&pipeEnds, O_CLOEXEC | O_NONBLOCK) == 0 else {
            return .failure(.failed("no pipe for \(program)'s messages: \(SystemError.text(errno))"))
        }
        defer { close(pipeEnds[1]) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // dup2 clears close-on-exec on descriptor 2 alone; the pipe's own ends close at exec.
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let environment = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid = pid_t()
        // posix_spawnp searches the caller's PATH (this process's), and reports a failed exec as its result.
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(pipeEnds[0])
            let text = "\(program): \(SystemError.text(result))"
            return .failure(result == ENOENT || result == EACCES ? .missing(text) : .failed(text))
        }
        return .success(PosixChild(pid: pid, output: pipeEnds[0]))
    }
}

/// A child of ``PosixSpawner``: its PID, a pidfd when the kernel gives one (Linux 5.3), and its standard error.
final class PosixChild: SpawnedChild {
    let pid: pid_t
    private let pidDescriptor: Int32
    private var output: Int32
    private var pending: [UInt8] = []
    private var status: Int32?

    /// The longest line kept; the rest of a longer one is dropped.
    static let lineLimit = 512

    init(pid: pid_t, output: Int32) {
        self.pid = pid
        self.output = output
        let descriptor = contactbox_pidfd_open(pid)
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        pidDescriptor = descriptor
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0, errno == EINTR {}
        }
        if pidDescriptor >= 0 { close(pidDescriptor) }
        if output >= 0 { close(output) }
    }

    var descriptors: [Int32] { [pidDescriptor, output].filter { $0 >= 0 } }

    func hasEnded() -> Int32? {
        if let status { return status }
        var wait: Int32 = 0
        let result = waitpid(pid, &wait, WNOHANG)
        guard result != 0 else { return nil }
        // ECHILD: not ours to reap any more; it has ended all the same.
        status = result == pid ? wait : -1
        return status
    }

    func takeOutput() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while output >= 0 {
            let count = read(output, &buffer, buffer.count)
            if count > 0 {
                pending += buffer[..<count]
                continue
            }
            if count < 0, errno == EINTR { continue }
            // 0: every writer has closed its end (the child has ended); EAGAIN: nothing more for now.
            if count == 0 || errno != EAGAIN {
                close(output)
                output = -1
                if !pending.isEmpty { pending.append(UInt8(ascii: "\n")) }
            }
            break
        }
        var lines: [String] = []
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[..<end].prefix(Self.lineLimit)
            if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
            pending.removeSubrange(...end)
        }
        if pending.count > Self.lineLimit * 4 { pending.removeAll() }
        return lines
    }

    func askToStop() {
        if hasEnded() == nil { kill(pid, SIGTERM) }
    }

    func reap(before deadline: Int64) -> Int32 {
        while hasEnded() == nil, monotonicMillis() < deadline {
            // The pidfd wakes us as the child ends; without one, look every 10 ms.
            var entry = pollfd(fd: pidDescriptor, events: Int16(POLLIN), revents: 0)
            let wait = Int32(clamping: min(max(deadline - monotonicMillis(), 0), pidDescriptor >= 0 ? 1000 : 10))
            _ = poll(&entry, pidDescriptor >= 0 ? 1 : 0, wait)
        }
        if let status = hasEnded() { return status }
        kill(pid, SIGKILL)
        var wait: Int32 = 0
        while waitpid(pid, &wait, 0) < 0, errno == EINTR {}
        status = wait
        return wait
    }
}

@available(*, unavailable) extension PosixChild: Sendable {}

/// A wait status as a person reads it: "exit 1", "signal 15".
func describeWaitStatus(_ status: Int32) -> String {
    guard status >= 0 else { return "ended" }
    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
    let signal = status & 0x7f
    return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
}

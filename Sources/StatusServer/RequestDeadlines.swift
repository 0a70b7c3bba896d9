import Glibc
import Synchronization

/// A total deadline for each request: its head and body must arrive, and its answer leave, within ``limit`` of the
/// connection's opening or of the previous answer on it. libmicrohttpd's own timeout is an idle one:
/// > MHD_OPTION_CONNECTION_TIMEOUT: After how many seconds of inactivity should a connection automatically be
/// > timed out?
/// so a client sending a byte a second would hold its connection for ever, and 16 such clients the whole server.
///
/// MHD tells us of each connection's opening and closing (MHD_OPTION_NOTIFY_CONNECTION) and of each answered
/// request (MHD_OPTION_NOTIFY_COMPLETED); ``DeadlineWatch`` calls ``expire()`` four times a second, which shuts down the
/// socket of every connection past its deadline. MHD then reads the end of the stream and closes the connection
/// itself: we never close a descriptor MHD owns. The shutdown happens under the same lock as ``closed(_:)``, which
/// MHD calls before it closes the socket, so the descriptor shut down is always still this connection's.
final class RequestDeadlines: Sendable {
    /// 10 s for a request to this server (a line, a few headers, at most 1 KiB of body) and its answer: a phone on
    /// a poor Wi-Fi link needs well under a second.
    static let defaultLimit = Duration.seconds(10)

    private struct Entry {
        let descriptor: Int32
        var deadline: Int64
    }

    let limit: Duration
    private let clock: @Sendable () -> Int64
    /// By the address of MHD's connection, which stays the same from its opening to its closing.
    private let entries = Mutex<[UInt: Entry]>([:])

    init(limit: Duration = defaultLimit, clock: @escaping @Sendable () -> Int64) {
        self.limit = limit
        self.clock = clock
    }

    /// How many connections are being watched.
    var count: Int { entries.withLock { $0.count } }

    /// A connection opened on `descriptor`: its first request's deadline starts now.
    func opened(_ connection: OpaquePointer, descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let deadline = clock() + limit.wholeMilliseconds
        entries.withLock { $0[Self.key(connection)] = Entry(descriptor: descriptor, deadline: deadline) }
    }

    /// A request on `connection` was answered: the next one on it has its own deadline from now.
    func completed(_ connection: OpaquePointer) {
        let deadline = clock() + limit.wholeMilliseconds
        entries.withLock { $0[Self.key(connection)]?.deadline = deadline }
    }

    /// The request on `connection` is making progress (a download took its next chunk) or waits on purpose (a long
    /// poll): its deadline is `extra` from now, if that is later.
    func extend(_ connection: OpaquePointer, by extra: Duration? = nil) {
        let deadline = clock() + (extra ?? limit).wholeMilliseconds
        entries.withLock { entries in
            guard let entry = entries[Self.key(connection)], entry.deadline < deadline else { return }
            entries[Self.key(connection)]?.deadline = deadline
        }
    }

    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Shuts down every connection past its deadline, and returns how many.
    @discardableResult
    func expire() -> Int {
        let now = clock()
        return entries.withLock { entries in
            var expired = 0
            for (key, entry) in entries where entry.deadline <= now {
                // ENOTCONN (the client already went) leaves nothing to do either way; MHD closes it in both cases.
                _ = shutdown(entry.descriptor, Int32(SHUT_RDWR))
                entries[key] = nil
                expired += 1
            }
            return expired
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }
}

/// The thread that calls ``RequestDeadlines/expire()`` (and `tick`: the long polls look again) every quarter of
/// a second until stopped. A thread of its own because
/// MHD's internal thread offers no timer, and the check must not wait on Swift's shared executor (blocking poll).
/// Stopping closes the write end of a pipe whose read end the thread polls, so `stop()` returns at once, not after
/// a second.
final class DeadlineWatch: Sendable {
    /// The pipe's write end.
    private let wakeup: Int32
    private let thread: Mutex<pthread_t?>

    /// nil when no thread or pipe could be had (out of resources): the caller refuses to start without it.
    init?(
        _ deadlines: RequestDeadlines, every period: Duration = .milliseconds(250),
        tick: @escaping @Sendable () -> Void = {}
    ) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        // Close-on-exec, as every descriptor of the daemon: the sync helpers it spawns must not inherit them.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let context = Unmanaged.passRetained(
            WatchContext(deadlines: deadlines, wakeup: ends[0], period: period, tick: tick))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let context = Unmanaged<WatchContext>.fromOpaque(raw).takeRetainedValue()
                context.run()
                return nil
            }, context.toOpaque())
        guard created == 0 else {
            context.release()
            close(ends[0])
            close(ends[1])
            return nil
        }
        self.wakeup = ends[1]
        self.thread = Mutex(thread)
    }

    /// Stops the thread and waits for it. Calling it again does nothing.
    func stop() {
        guard let running = thread.withLock({ $0.take() }) else { return }
        // The read end becomes readable (end of file) when its only write end closes.
        close(wakeup)
        pthread_join(running, nil)
    }

    deinit {
        stop()
    }
}

/// What the watch thread holds, retained for it until it ends; it closes the pipe's read end.
private final class WatchContext: Sendable {
    let deadlines: RequestDeadlines
    let wakeup: Int32
    let period: Duration
    let tick: @Sendable () -> Void

    init(deadlines: RequestDeadlines, wakeup: Int32, period: Duration, tick: @escaping @Sendable () -> Void) {
        self.deadlines = deadlines
        self.wakeup = wakeup
        self.period = period
        self.tick = tick
    }

    func run() {
        var descriptor = pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0)
        let timeout = Int32(clamping: period.wholeMilliseconds)
        while true {
            let ready = poll(&descriptor, 1, timeout)
            // Readable: stop() asked. Another failure of poll (EINVAL, ENOMEM) ends the watch as well, leaving MHD's
            // idle timeout alone in force; it cannot happen with one valid descriptor short of memory running out.
            if ready > 0 || (ready < 0 && errno != EINTR) { break }
            deadlines.expire()
            tick()
        }
        close(wakeup)
    }
}

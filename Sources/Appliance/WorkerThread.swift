import CLinux
import Glibc
import SystemSupport

/// A POSIX thread running one closure. The sync worker blocks for seconds in SQLite and libcurl calls, so it gets a
/// thread of its own rather than a slot of Swift's shared executor (Docs/contributing.md, rule 6).
final class WorkerThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    init(_ body: @escaping @Sendable () -> Void) throws(ApplianceError) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw ApplianceError("cannot start a thread: \(SystemError.text(result))")
        }
        self.thread = thread
    }

    /// Waits for the thread to end, at most `limit`; returns whether it did.
    func join(waitingAtMost limit: Duration) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int64(deadline.tv_nsec) + attoseconds / 1_000_000_000
        deadline.tv_sec += Int(seconds + nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        return pthread_timedjoin_np(thread, nil, &deadline) == 0
    }
}

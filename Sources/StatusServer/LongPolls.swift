import CMicroHTTPD
import Synchronization

/// The changes feed's long polls (`GET /api/changes?feed=longpoll`): a request with no change to give waits, its
/// connection suspended in MHD (MHD_suspend_connection: no thread and no polling while it waits), until the store
/// has a change after the `since` it asked with, or its timeout. ``DeadlineWatch`` resumes every waiting
/// connection four times a second, and a write through the API at once; MHD then calls the request's handler again,
/// which looks at the store's last change (one indexed read) and answers or waits again. So a change made anywhere
/// (a sync, the command line, the API) wakes a long poll within a quarter of a second, and nothing needs to tell
/// the server of it.
///
/// At most ``limit`` wait at once, ``limitPerClient`` of them from one address (each holds a connection, of the 16
/// the page has and the 4 a client may have); one more is refused with 503 and `Retry-After`, so a program that
/// polls in a loop backs off instead of spinning.
final class LongPolls: Sendable {
    static let limit = 4
    static let limitPerClient = 2
    /// CouchDB's default timeout, and the longest one taken.
    static let maxTimeout = Duration.seconds(60)

    struct Waiter: Sendable {
        var since: Int64
        var limit: Int
        /// Monotonic milliseconds.
        var deadline: Int64
        /// The client's address.
        var client: String
        var suspended = false
    }

    private struct State {
        var waiters: [UInt: Waiter] = [:]
        var stopping = false
    }

    private let state = Mutex(State())

    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    /// The wait `connection` is in, if it is one.
    func waiter(_ connection: OpaquePointer) -> Waiter? {
        state.withLock { $0.waiters[Self.key(connection)] }
    }

    /// Starts a wait for `connection`; false when ``limit`` wait already, or the server is stopping.
    func begin(_ connection: OpaquePointer, _ waiter: Waiter) -> Bool {
        state.withLock { state in
            guard !state.stopping, state.waiters.count < Self.limit,
                state.waiters.values.count(where: { $0.client == waiter.client }) < Self.limitPerClient
            else { return false }
            state.waiters[Self.key(connection)] = waiter
            return true
        }
    }

    /// Suspends `connection` (called from its request's handler, on MHD's thread, which is where MHD allows it);
    /// false when the server is stopping: answer now instead.
    func suspend(_ connection: OpaquePointer) -> Bool {
        state.withLock { state in
            guard !state.stopping, state.waiters[Self.key(connection)] != nil else { return false }
            state.waiters[Self.key(connection)]?.suspended = true
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// The request on `connection` ended (answered, or its client gone): its wait, if any, is over.
    func end(_ connection: OpaquePointer) {
        _ = state.withLock { $0.waiters.removeValue(forKey: Self.key(connection)) }
    }

    /// Resumes every suspended wait, so each looks at the store again. Only suspended connections are resumed, and
    /// one cannot end while suspended, so each is still MHD's. Any thread.
    func resumeAll() {
        state.withLock { state in
            for (key, waiter) in state.waiters where waiter.suspended {
                state.waiters[key]?.suspended = false
                if let connection = OpaquePointer(bitPattern: key) { MHD_resume_connection(connection) }
            }
        }
    }

    /// Before MHD stops: every wait answers at once, and none begins.
    func stop() {
        state.withLock { $0.stopping = true }
        resumeAll()
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// How many wait, suspended or being looked at.
    var count: Int { state.withLock { $0.waiters.count } }
}

import CLinux
import Glibc
import SystemSupport

/// An eventfd(2) one thread signals and another waits on (or polls, next to its other descriptors): how the sync
/// worker, the status server and the signal handling wake the main loop without a timer.
public final class WakeUp: Sendable {
    public let descriptor: Int32

    public init() throws(ApplianceError) {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else { throw ApplianceError("cannot create an eventfd: \(lastErrorText())") }
    }

    deinit { close(descriptor) }

    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Clears the signals so far; returns whether there were any.
    @discardableResult
    public func drain() -> Bool {
        var count: UInt64 = 0
        return read(descriptor, &count, 8) == 8
    }

    /// Blocks until signalled (or `limit` passes; nil: forever), then clears it.
    public func wait(atMost limit: Duration? = nil) {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, limit.map { Int32(clamping: max(0, $0.wholeMilliseconds)) } ?? -1)
        drain()
    }
}

/// errno in words.
func lastErrorText() -> String {
    SystemError.text(errno)
}

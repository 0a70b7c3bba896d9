import CLinux
import Glibc

/// SIGTERM, SIGINT and SIGHUP as a descriptor (signalfd(2)) the main loop polls: no handler runs in signal context
/// at all. The signals are blocked in every thread, so this must be created before any other thread starts (they
/// inherit the mask).
public final class SignalWatch {
    public enum Received: Sendable, Equatable {
        case stop
        case reload
    }

    public let descriptor: Int32

    public init() throws(ApplianceError) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // A client that goes away mid-answer must not end the daemon.
        signal(SIGPIPE, SIG_IGN)
        descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard descriptor >= 0 else { throw ApplianceError("cannot watch signals: \(lastErrorText())") }
    }

    deinit { close(descriptor) }

    /// The signals that arrived, in order.
    public func take() -> [Received] {
        var received: [Received] = []
        var info = signalfd_siginfo()
        while read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            received.append(Int32(info.ssi_signo) == SIGHUP ? .reload : .stop)
        }
        return received
    }
}

@available(*, unavailable) extension SignalWatch: Sendable {}

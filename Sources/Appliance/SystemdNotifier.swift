import CLinux
import Glibc

/// sd_notify(3) without libsystemd: one datagram per message to `$NOTIFY_SOCKET`. Readiness (`Type=notify`),
/// the status line, watchdog pings and stopping. Does nothing when not started by systemd.
public final class SystemdNotifier: Sendable {
    private let socket: Int32
    private let address: [UInt8]
    /// Half of `WatchdogSec`, when systemd asked for pings (sd_watchdog_enabled(3): "it is
    /// recommended that a daemon sends a keep-alive notification message to the service manager every half the
    /// time returned here").
    public let watchdogInterval: Duration?

    public init() {
        let path = getenv("NOTIFY_SOCKET").map { String(cString: $0) } ?? ""
        // > If the first character of $NOTIFY_SOCKET is "@", the string is understood as Linux abstract namespace
        // > socket. (sd_notify(3))
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        address = bytes
        socket =
            bytes.isEmpty ? -1 : Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var interval: Duration?
        if let usec = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), usec > 0 {
            let forUs = getenv("WATCHDOG_PID").flatMap { pid_t(String(cString: $0)) }.map { $0 == getpid() } ?? true
            if forUs { interval = .microseconds(usec / 2) }
        }
        watchdogInterval = interval
    }

    deinit { if socket >= 0 { close(socket) } }

    public var isActive: Bool { socket >= 0 }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ status: String) { send("STATUS=\(status)") }
    public func reloading() { send("RELOADING=1") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1\nSTATUS=Stopping") }

    private func send(_ message: String) {
        guard socket >= 0, address.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return }
        var target = sockaddr_un()
        target.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &target.sun_path) { path in
            for (index, byte) in address.enumerated() { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + address.count)
        var bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                sendto(socket, &bytes, bytes.count, Int32(MSG_NOSIGNAL), sockaddr, length)
            }
        }
    }
}

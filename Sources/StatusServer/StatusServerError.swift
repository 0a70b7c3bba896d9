import Glibc
import SystemSupport

/// Why the status server could not start, in words a person setting up the box can act on (Docs/contributing.md,
/// rule 4). The message names the address and port it tried, never the password.
public struct StatusServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// A setting is out of range (a limit of zero, a password with a line break...).
        case invalidSettings
        /// The host is not an IP address this server can listen on.
        case invalidAddress
        /// Another program (or another status server) already listens on the port.
        case addressInUse
        /// The host is an IP address, but not one of this machine's.
        case addressNotAvailable
        /// Ports below 1024 need privileges.
        case permissionDenied
        /// The operating system or libmicrohttpd refused for another reason.
        case startFailed
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// An error from socket(2), bind(2) or listen(2) while opening `address`, explained.
    static func listenFailed(_ address: String, port: UInt16, errno: Int32) -> StatusServerError {
        switch errno {
        case EADDRINUSE:
            return StatusServerError(
                code: .addressInUse,
                message: "Cannot show the status page on \(address): port \(port) is already in use by another "
                    + "program (is ContactBox already running?); stop it or choose another port")
        case EADDRNOTAVAIL:
            return StatusServerError(
                code: .addressNotAvailable,
                message: "Cannot show the status page on \(address): this machine has no such address; use "
                    + "127.0.0.1 for this box only, 0.0.0.0 for every network, or one of the box's own addresses")
        case EACCES, EPERM:
            return StatusServerError(
                code: .permissionDenied,
                message: "Cannot show the status page on \(address): port \(port) needs privileges; choose a "
                    + "port of 1024 or above, or give the service CAP_NET_BIND_SERVICE")
        default:
            return StatusServerError(
                code: .startFailed,
                message: "Cannot show the status page on \(address): \(SystemError.text(errno)) (errno \(errno))")
        }
    }
}

import Glibc

/// The status server's listening socket. We open it ourselves and hand it to libmicrohttpd because
/// MHD_start_daemon reports every failure as a bare NULL, while a person configuring the box needs to hear "port
/// 8080 is in use" or "no such address" (the errno of bind(2)).
struct ListenSocket {
    let descriptor: Int32
    /// The port bound: the one asked for, or the one the kernel chose for port 0.
    let port: UInt16
    /// As people read it, with the bound port: "127.0.0.1:8080", "[::1]:8080".
    let address: String

    /// Binds and listens on `host` (an IPv4 or IPv6 address, or `localhost`) and `port`.
    static func open(host: String, port: UInt16) throws(StatusServerError) -> ListenSocket {
        let requested = displayAddress(host, port)
        guard let endpoint = Endpoint(host: host, port: port) else {
            throw StatusServerError(
                code: .invalidAddress,
                message: "Cannot show the status page on \(requested): \"\(host)\" is not an IP address; use "
                    + "127.0.0.1 for this box only, 0.0.0.0 for every IPv4 network, or :: for IPv4 and IPv6")
        }
        // Non-blocking as MHD's event loop needs; close-on-exec so the sync helpers we spawn do not inherit it.
        let descriptor = socket(
            endpoint.family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else {
            throw StatusServerError.listenFailed(requested, port: port, errno: errno)
        }
        // SO_REUSEADDR lets a restarted daemon bind while old connections sit in TIME_WAIT; on Linux it still
        // refuses a second listener on the same port, which is the error we want to report.
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = endpoint.withSocketAddress { address, length in bind(descriptor, address, length) }
        guard bound == 0, listen(descriptor, SOMAXCONN) == 0 else {
            let failure = errno
            close(descriptor)
            throw StatusServerError.listenFailed(requested, port: port, errno: failure)
        }
        let boundPort = localPort(descriptor) ?? port
        return ListenSocket(descriptor: descriptor, port: boundPort, address: displayAddress(host, boundPort))
    }

    /// After MHD_start_daemon failed: MHD may or may not have closed the socket on its way out (its manual does not
    /// say), and closing a descriptor twice could close another thread's file that reused the number. So close only
    /// what is still our listening socket on our port.
    func closeAfterFailedStart() {
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1,
            Self.localPort(descriptor) == port
        else { return }
        close(descriptor)
    }

    /// getsockname(2): with port 0 the kernel picks the port, and only the socket knows which.
    private static func localPort(_ descriptor: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: &storage) { bytes in
            switch family {
            case AF_INET: return UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: return UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port)
            default: return nil
            }
        }
    }
}

/// "host:port", with IPv6 addresses in brackets (RFC 3986 section 3.2.2) so the port cannot be mistaken for a group.
func displayAddress(_ host: String, _ port: UInt16) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
}

/// A numeric socket address. Host names other than `localhost` are refused on purpose: resolving them at start-up
/// would make the daemon depend on DNS being up before the network is.
private enum Endpoint {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    init?(host: String, port: UInt16) {
        var text = host == "localhost" ? "127.0.0.1" : host
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, text, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            self = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, text, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            self = .v6(v6)
            return
        }
        return nil
    }

    var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        switch self {
        case .v4(var address):
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(var address):
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}

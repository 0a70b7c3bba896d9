import Glibc

/// An IPv4 or IPv6 address as inet_ntop(3) writes it, the one spelling we compare and log: `192.168.1.20`, `::1`.
/// An IPv4-mapped IPv6 address (`::ffff:192.168.1.20`: an IPv4 client of a socket listening on `::`) is written as
/// the IPv4 address it carries, so that a client or an interface has one name whichever socket saw it.
/// `address` points to an `in_addr` or an `in6_addr`, by `family`.
func numericText(family: Int32, address: UnsafeRawPointer?) -> String? {
    guard let address else { return nil }
    if family == AF_INET6 {
        let bytes = UnsafeRawBufferPointer(start: address, count: 16)
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return numericText(family: AF_INET, address: address + 12)
        }
    } else if family != AF_INET {
        return nil
    }
    // INET6_ADDRSTRLEN, 46, holds the longest of either family.
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in
        guard let text = inet_ntop(family, address, buffer.baseAddress, 48) else { return nil }
        return String(cString: text)
    }
}

/// The address of an IPv4 or IPv6 socket address (a client's, an interface's) in ``numericText(family:address:)``'s
/// spelling; nil for other families.
func numericText(_ socketAddress: UnsafePointer<sockaddr>) -> String? {
    // The family says how large the structure behind the pointer is.
    switch Int32(socketAddress.pointee.sa_family) {
    case AF_INET:
        var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        return withUnsafeBytes(of: &address) { numericText(family: AF_INET, address: $0.baseAddress) }
    case AF_INET6:
        var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        return withUnsafeBytes(of: &address) { numericText(family: AF_INET6, address: $0.baseAddress) }
    default:
        return nil
    }
}

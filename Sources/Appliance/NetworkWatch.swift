import CLinux
import Glibc
import SystemSupport

/// Notices the network coming back: a netlink socket (rtnetlink(7)) wakes the main loop when links, addresses or
/// routes change, and "online" means a default route exists, IPv4 or IPv6. Cheap enough to ask at every change.
public final class NetworkWatch {
    /// Readable when something changed; -1 when netlink is unavailable (then only the retry timer helps).
    public let descriptor: Int32
    public private(set) var isOnline: Bool

    public init() {
        let fd = socket(
            AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue),
            NETLINK_ROUTE)
        if fd >= 0 {
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            // The IPv6 addresses too: the box's name over mDNS follows them (`NetworkNamePublisher`).
            address.nl_groups = UInt32(
                RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
            descriptor = bound == 0 ? fd : -1
            if bound != 0 { close(fd) }
        } else {
            descriptor = -1
        }
        isOnline = Self.hasDefaultRoute()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Reads the pending notifications and looks again; returns true when the network just came back.
    public func update() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while descriptor >= 0, recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
        let was = isOnline
        isOnline = Self.hasDefaultRoute()
        return isOnline && !was
    }

    /// A route to 0.0.0.0/0 or ::/0 that is up, from /proc/net/route and /proc/net/ipv6_route.
    public static func hasDefaultRoute(
        ipv4 routes: String? = SmallFile.text("/proc/net/route"),
        ipv6 routes6: String? = SmallFile.text("/proc/net/ipv6_route")
    ) -> Bool {
        // /proc/net/route: "Iface Destination Gateway Flags ..." in hex; RTF_UP is 0x1.
        for line in (routes ?? "").split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count > 3, fields[1] == "00000000", let flags = Int(fields[3], radix: 16), flags & 1 != 0 {
                return true
            }
        }
        // /proc/net/ipv6_route: "dest prefixlen src srclen nexthop metric refcnt use flags iface".
        for line in (routes6 ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 9, fields[0].allSatisfy({ $0 == "0" }), fields[1] == "00", fields[9] != "lo",
                let flags = Int(fields[8], radix: 16), flags & 1 != 0
            {
                return true
            }
        }
        return false
    }
}

@available(*, unavailable) extension NetworkWatch: Sendable {}

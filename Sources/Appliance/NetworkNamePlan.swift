import Glibc
import SystemSupport

/// What the box publishes over mDNS for its name (`[box] name`), decided without I/O (Docs/contributing.md,
/// rule 8): the `avahi-publish` commands for a name, the status page's port and the box's addresses, and how long
/// to wait before starting one again that ended.
///
/// Why `avahi-publish`: the daemon runs unprivileged and read-only (it can neither set the host name nor write
/// /etc/avahi), but Avahi lets any local user publish records over D-Bus, and `avahi-publish` keeps them while it
/// runs and withdraws them when it ends. It takes one address per process (`-a NAME ADDRESS`), and Avahi refuses a
/// second record of the same name and type from another process ("Local name collision"), so one IPv4 and one IPv6
/// address is what a name can have this way: the address record is also a unique record on the network.
struct NetworkNamePlan: Equatable, Sendable {
    /// One `avahi-publish` process: its arguments after the program's name.
    struct Command: Hashable, Sendable, CustomStringConvertible {
        var arguments: [String]

        var description: String { arguments.joined(separator: " ") }
    }

    /// The addresses the name points to, and the host's own name, read together (``read()``).
    struct Addresses: Equatable, Sendable {
        var ipv4: String?
        var ipv6: String?
        /// The machine's host name, short form: Avahi already publishes `<host>.local` and its addresses.
        var hostName: String?

        init(ipv4: String? = nil, ipv6: String? = nil, hostName: String? = nil) {
            self.ipv4 = ipv4
            self.ipv6 = ipv6
            self.hostName = hostName
        }
    }

    /// The name shown in network views ("ContactBox kitchen"), beside the static announcement's "ContactBox on
    /// <host>" (`Deploy/contactbox.avahi.service`).
    static func serviceName(_ name: String) -> String { "ContactBox \(name)" }

    /// The processes to keep running for `name` (nil: none). `pagePort` nil: the page is not reachable from the
    /// network (it listens on loopback, or did not start), so only the name is published. A name that is the
    /// host's own is Avahi's already, address and page both (the static announcement): nothing to add, and an
    /// address record of our own would collide with Avahi's.
    static func commands(name: String?, pagePort: UInt16?, addresses: Addresses) -> [Command] {
        guard let name, !name.isEmpty else { return [] }
        if let host = addresses.hostName, host.lowercased() == name.lowercased() { return [] }
        let fullName = "\(name).local"
        var commands: [Command] = []
        // -R: no reverse (PTR) record: Avahi publishes the address's reverse name for the host already, and a
        // second one would collide. -f: wait for avahi-daemon when it is not running (yet), and reconnect when it
        // restarts, rather than exit.
        for address in [addresses.ipv4, addresses.ipv6].compactMap({ $0 }) {
            commands.append(Command(arguments: ["-f", "-R", "-a", fullName, address]))
        }
        if let pagePort {
            commands.append(
                Command(arguments: [
                    "-f", "-s", "-H", fullName, serviceName(name), "_http._tcp", "\(pagePort)", "path=/",
                ]))
        }
        return commands
    }

    // MARK: Restarts

    /// The wait before the first restart of a process that ended; it doubles with each ending that follows soon
    /// after a start, up to ``longestWait``: a name taken by another device, or avahi-daemon refusing us, costs a
    /// start every 5 minutes, not a busy loop.
    static let firstWait = Duration.seconds(2)
    static let longestWait = Duration.seconds(300)
    /// A process that ran this long before it ended was working: its next wait starts again at ``firstWait``.
    static let steadyAfter = Duration.seconds(60)

    /// How long to wait before starting again a process that ended after running `ran`, when the one before it
    /// ended `earlierFailures` times in a row soon after its start; and the new count.
    static func restart(ran: Duration, earlierFailures: Int) -> (wait: Duration, failures: Int) {
        let failures = ran >= steadyAfter ? 1 : earlierFailures + 1
        var wait = firstWait
        for _ in 1..<max(failures, 1) where wait < longestWait { wait *= 2 }
        return (min(wait, longestWait), failures)
    }

    // MARK: The box's addresses

    /// The box's addresses as a neighbour would reach it: IPv4 from the interfaces (getifaddrs), preferring the
    /// one the default route leaves by; IPv6 from /proc/net/if_inet6, which says which addresses are temporary or
    /// not yet usable.
    static func read() -> Addresses {
        Addresses(
            ipv4: chooseIPv4(
                interfaces: ipv4Interfaces(), defaultRoute: defaultRouteInterface(SmallFile.text("/proc/net/route"))),
            ipv6: chooseIPv6(ifInet6: SmallFile.text("/proc/net/if_inet6", limit: 65536)),
            hostName: hostName())
    }

    /// The first address of the default route's interface, else the first of any interface; loopback and link-local
    /// (169.254.0.0/16: no DHCP answered) addresses are never chosen while there is another.
    static func chooseIPv4(interfaces: [(interface: String, address: String)], defaultRoute: String?) -> String? {
        let usable = interfaces.filter { !$0.address.hasPrefix("127.") }
        let routable = usable.filter { !$0.address.hasPrefix("169.254.") }
        let pool = routable.isEmpty ? usable : routable
        return (pool.first { $0.interface == defaultRoute } ?? pool.first)?.address
    }

    /// From /proc/net/if_inet6 ("address index prefix scope flags interface", hex): the first address of global
    /// scope (ULA or global) that is neither temporary (it changes every day), deprecated, tentative nor failed.
    /// Link-local addresses are left out: a neighbour can use one only with its own interface's scope, which an
    /// mDNS answer from `avahi-publish` cannot give; those neighbours reach the box over IPv4.
    static func chooseIPv6(ifInet6 text: String?) -> String? {
        // IFA_F_TEMPORARY 0x01, IFA_F_DADFAILED 0x08, IFA_F_DEPRECATED 0x20, IFA_F_TENTATIVE 0x40 (if_addr.h).
        let unusable = 0x01 | 0x08 | 0x20 | 0x40
        for line in (text ?? "").split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 6, fields[0].utf8.count == 32, fields[5] != "lo",
                let scope = Int(fields[3], radix: 16), scope == 0,
                let flags = Int(fields[4], radix: 16), flags & unusable == 0
            else { continue }
            let hex = Array(fields[0])
            let groups = stride(from: 0, to: 32, by: 4).map { String(hex[$0..<$0 + 4]) }
            return compressedIPv6(groups)
        }
        return nil
    }

    /// Eight groups of four hex digits as inet_ntop writes them: leading zeros dropped, the longest run of two or
    /// more zero groups written `::`.
    static func compressedIPv6(_ groups: [String]) -> String {
        let short = groups.map { group -> String in
            let trimmed = group.lowercased().drop { $0 == "0" }
            return trimmed.isEmpty ? "0" : String(trimmed)
        }
        var best = (start: -1, length: 0)
        var index = 0
        while index < short.count {
            guard short[index] == "0" else {
                index += 1
                continue
            }
            var end = index
            while end < short.count, short[end] == "0" { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        guard best.length >= 2 else { return short.joined(separator: ":") }
        let head = short[..<best.start].joined(separator: ":")
        let tail = short[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    /// The interface of the IPv4 default route in /proc/net/route ("Iface Destination Gateway Flags ...", hex).
    static func defaultRouteInterface(_ routes: String?) -> String? {
        for line in (routes ?? "").split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count > 3, fields[1] == "00000000", let flags = Int(fields[3], radix: 16), flags & 1 != 0 {
                return String(fields[0])
            }
        }
        return nil
    }

    /// Each up, non-loopback interface's IPv4 addresses, in the kernel's order.
    static func ipv4Interfaces() -> [(interface: String, address: String)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [(String, String)] = []
        var entry = list
        while let current = entry {
            entry = current.pointee.ifa_next
            let flags = current.pointee.ifa_flags
            guard let address = current.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                flags & UInt32(IFF_UP) != 0, flags & UInt32(IFF_LOOPBACK) == 0,
                let name = current.pointee.ifa_name
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
            }
            guard written != nil else { continue }
            found.append(
                (String(cString: name), String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)))
        }
        return found
    }

    /// gethostname(2) up to its first dot.
    static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        // One byte short of the buffer: the name ends in a zero even where gethostname truncates it.
        guard gethostname(&name, name.count - 1) == 0 else { return nil }
        let full = String(decoding: name.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        let short = full.prefix { $0 != "." }
        return short.isEmpty ? nil : String(short)
    }
}

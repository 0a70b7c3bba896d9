import Glibc
import Synchronization

/// The names and addresses the status page answers to (see ``RequestGuard/checkHost(_:httpVersion:allowed:)``):
/// - what does not change while the daemon runs: `localhost`, `contactbox.local` (the Avahi announcement's name),
///   the configured listen address unless it is a wildcard, and the `allowed_hosts` setting;
/// - the box's name (`[box] name`, set from the page): `<name>` and `<name>.local`, which the daemon publishes over
///   mDNS; it changes with a reload, so the daemon gives it here (``setBoxName(_:)``) without a restart;
/// - what may: the host name (`gethostname`, with `<name>.local` for mDNS) and the addresses of the network
///   interfaces (`getifaddrs`), which DHCP or SLAAC give and take while the box runs.
///
/// The second set is read again only when a request names something the box does not know, at most once every
/// ``refreshAfter``: a hit costs a set lookup, and a stream of foreign names costs at most one getifaddrs(3) per
/// interval, however fast it comes.
final class AllowedHosts: Sendable {
    static let refreshAfter = Duration.seconds(5)

    /// The allowed names and addresses, and where they come from: the union is what a request is checked against.
    private struct Current {
        var hosts: Set<String>
        var boxNames: Set<String> = []
        var system: Set<String> = []
        var readAt: Int64?
    }

    private let fixed: Set<String>
    private let systemHosts: @Sendable () -> Set<String>
    private let clock: @Sendable () -> Int64
    private let current: Mutex<Current>

    /// `configured`: the listen host and the `allowed_hosts` entries, as written (already validated).
    /// `systemHosts` and `clock` (monotonic milliseconds) are replaced by tests.
    init(
        configured: [String], systemHosts: @escaping @Sendable () -> Set<String> = AllowedHosts.readSystemHosts,
        clock: @escaping @Sendable () -> Int64
    ) {
        var fixed: Set<String> = ["localhost", "contactbox.local"]
        for host in configured {
            guard let normal = RequestGuard.normalizedHost(host), normal != "0.0.0.0", normal != "::" else { continue }
            fixed.insert(normal)
        }
        self.fixed = fixed
        self.systemHosts = systemHosts
        self.clock = clock
        current = Mutex(Current(hosts: fixed))
    }

    func check(_ header: String?, httpVersion: String) -> RequestGuard.HostVerdict {
        let verdict = current.withLock { RequestGuard.checkHost(header, httpVersion: httpVersion, allowed: $0.hosts) }
        guard verdict == .refused else { return verdict }
        let now = clock()
        let refreshed: Set<String>? = current.withLock { current in
            if let readAt = current.readAt, .milliseconds(now - readAt) < Self.refreshAfter { return nil }
            current.system = systemHosts()
            current.readAt = now
            current.hosts = fixed.union(current.boxNames).union(current.system)
            return current.hosts
        }
        guard let refreshed else { return verdict }
        return RequestGuard.checkHost(header, httpVersion: httpVersion, allowed: refreshed)
    }

    /// The box's name is now `name` (nil: none): `<name>` and `<name>.local` are answered from the next request on,
    /// and the previous name's are not. Any thread.
    func setBoxName(_ name: String?) {
        var names: Set<String> = []
        if let name, let normal = RequestGuard.normalizedHost(name) {
            names.insert(normal)
            names.insert(normal + ".local")
        }
        current.withLock { current in
            current.boxNames = names
            current.hosts = fixed.union(names).union(current.system)
        }
    }

    /// This machine's host names and the addresses of its interfaces, loopback included.
    @Sendable static func readSystemHosts() -> Set<String> {
        var hosts: Set<String> = []
        var name = [UInt8](repeating: 0, count: 256)
        // One byte short of the buffer: the name ends in a zero even where gethostname truncates it.
        let named = name.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                chars.baseAddress.map { gethostname($0, chars.count - 1) } ?? -1
            }
        }
        if named == 0, let full = RequestGuard.normalizedHost(String(decoding: name.prefix { $0 != 0 }, as: UTF8.self))
        {
            hosts.insert(full)
            // "box.home.arpa" is announced over mDNS as "box.local".
            let short = full.prefix { $0 != "." }
            hosts.insert(String(short))
            hosts.insert(short + ".local")
        }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return hosts }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, let text = numericText(address) { hosts.insert(text) }
            entry = current.pointee.ifa_next
        }
        return hosts
    }
}

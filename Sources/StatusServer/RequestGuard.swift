import Glibc

/// The checks a request must pass before it may see the status (the password) or change anything (the origin of
/// `POST /api/sync`). Pure functions over header values, so the rules are tested without a server.
enum RequestGuard {
    /// What the `Host` header says about a request.
    enum HostVerdict: Equatable {
        case allowed
        /// No `Host` in an HTTP/1.1 request, which RFC 9112 section 3.2 answers with 400.
        case missing
        /// A name or address the box does not answer to, or no host at all: answered with 421.
        case refused
    }

    /// Whether a request with this `Host` header is for this box (`allowed` holds ``normalizedHost(_:)`` forms).
    ///
    /// DNS rebinding: a web page at `http://evil.example:8080` has its name resolve to the box's address, and the
    /// browser then lets that page read what the box answers, as if it came from evil.example. The browser still
    /// sends `Host: evil.example:8080`: answering only the names and addresses we know stops it.
    ///
    /// The port in the header is not compared. The attacker's page must already use the box's port to reach it,
    /// so the port tells nothing about rebinding, while a router or proxy forwarding another port to the box
    /// legitimately sends its own.
    ///
    /// A request without `Host` is HTTP/1.0 from a script (every browser sends one): allowed. HTTP/1.1 requires it.
    static func checkHost(_ header: String?, httpVersion: String, allowed: Set<String>) -> HostVerdict {
        guard let header else { return httpVersion == "HTTP/1.0" ? .allowed : .missing }
        guard let host = hostOfHeader(header), allowed.contains(host) else { return .refused }
        return .allowed
    }

    /// The host of a `Host` header (RFC 9110 section 7.2: `uri-host [ ":" port ]`) in ``normalizedHost(_:)``'s
    /// form; nil when the header is not that shape.
    static func hostOfHeader(_ header: String) -> String? {
        var host = Substring(header)
        var port: Substring = ""
        if header.hasPrefix("[") {
            guard let close = header.firstIndex(of: "]") else { return nil }
            host = header[...close]
            let rest = header[header.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = header.lastIndex(of: ":") {
            host = header[..<colon]
            port = header[header.index(after: colon)...]
        }
        if header.hasSuffix(":") || !port.isEmpty {
            guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        return normalizedHost(String(host))
    }

    /// A host name or IP address as compared: names in lower case without a trailing dot (`Box.Local.` is
    /// `box.local`), addresses as inet_ntop(3) writes them (`[0:0::1]` is `::1`), an IPv6 zone (`%25eth0`, which a
    /// browser never sends) left out. nil for anything else: a port, a path, a space, an empty name.
    static func normalizedHost(_ text: String) -> String? {
        var text = Substring(text)
        let bracketed = text.hasPrefix("[") && text.hasSuffix("]") && text.count > 2
        if bracketed { text = text.dropFirst().dropLast() }
        if text.contains(":") {
            let address = text.prefix { $0 != "%" }
            return numericAddress(String(address), family: AF_INET6)
        }
        guard !bracketed else { return nil }
        if let address = numericAddress(String(text), family: AF_INET) { return address }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard (1...253).contains(text.utf8.count), !text.hasPrefix("."), !text.contains(".."),
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
        else { return nil }
        return text.lowercased()
    }

    /// inet_pton(3) then inet_ntop(3): the one spelling of an address, or nil when `text` is not one.
    private static func numericAddress(_ text: String, family: Int32) -> String? {
        var address = in6_addr()
        guard inet_pton(family, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { numericText(family: family, address: $0.baseAddress) }
    }

    /// Whether a request that changes something comes from the status page itself, not from another site open in
    /// the same browser (cross-site request forgery: any web page can make a browser POST to 192.168.1.20).
    ///
    /// Browsers send `Origin` on every POST (Fetch standard, "append a request `Origin` header"), and current ones
    /// `Sec-Fetch-Site`. curl and scripts send neither, which is fine: forging a request needs a victim's browser.
    /// Our own page posts to the host it was loaded from, so its origin is `http://` (or `https://` behind a TLS
    /// proxy) followed by the `Host` header the browser sent, port included when it is not the default.
    static func isSameOrigin(origin: String?, host: String?, fetchSite: String?) -> Bool {
        // > Sec-Fetch-Site: cross-site: the request initiator and the server hosting the resource have a
        // > different site (W3C Fetch Metadata).
        if let fetchSite, fetchSite.lowercased() == "cross-site" { return false }
        guard let origin else { return true }
        // Opaque origins ("null": sandboxed frames, file: pages) never match.
        guard let host, !host.isEmpty else { return false }
        let expected = host.lowercased()
        let given = origin.lowercased()
        return given == "http://" + expected || given == "https://" + expected
    }

    /// Whether `given` equals `expected`, in a time that depends only on `expected`'s length: answering faster the
    /// more leading bytes of a guess are right would let someone on the network find the password byte by byte.
    static func constantTimeEqual(_ given: UnsafeBufferPointer<UInt8>, _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            let byte = index < given.count ? given[index] : 0
            difference |= byte ^ expected[index]
        }
        return difference == 0
    }

    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        given.withUnsafeBufferPointer { constantTimeEqual($0, expected) }
    }
}

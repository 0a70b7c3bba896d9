/// The checks a request must pass before it may see the status (the password) or change anything (the origin of
/// `POST /api/sync`). Pure functions over header values, so the rules are tested without a server.
enum RequestGuard {
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

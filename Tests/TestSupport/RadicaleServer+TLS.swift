#if canImport(Glibc)
    import Glibc
#endif

extension RadicaleServer {
    /// Radicale serving HTTPS itself (`[server] ssl = True`, `certificate`, `key`), with a certificate from
    /// `TestCertificates`.
    public struct TLS {
        /// The server's certificate and key.
        public var pair: TestCertificates.Pair
        /// The CA the fixture's own requests (`request`, through the curl command) trust.
        public var authority: String
        /// Radicale's `[server] type = hypercorn` (needs `hypercorn` in the virtualenv, which `ensure_venv`
        /// installs): HTTP/2 through ALPN, and connections kept alive. Radicale's own server answers in HTTP/1.0
        /// and closes every connection, so a client can only resume TLS sessions there, never reuse a connection.
        public var hypercorn: Bool

        public init(_ pair: TestCertificates.Pair, authority: String, hypercorn: Bool = false) {
            self.pair = pair
            self.authority = authority
            self.hypercorn = hypercorn
        }

        /// The test CA's certificate for 127.0.0.1 and localhost.
        public static func trusted(hypercorn: Bool = false) throws -> TLS {
            let certificates = try TestCertificates.shared()
            return TLS(certificates.server, authority: certificates.authority, hypercorn: hypercorn)
        }

        var serverOptions: String {
            (hypercorn ? "type = hypercorn\n" : "") + "ssl = True\ncertificate = \(pair.certificate)\nkey = \(pair.key)"
        }
    }

    /// What Radicale has logged so far.
    public func log() -> String {
        guard let file = fopen(logPath, "rb") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The request lines Radicale logged (with `logRequests`): "PUT request for '/alice/contacts/x.vcf' received
    /// from 127.0.0.1 using 'ContactBox/test' ...", one per HTTP request that reached the application.
    public func loggedRequests() -> [String] {
        log().split(separator: "\n").map(String.init).filter { $0.contains(" request for ") }
    }

    /// Waits until the log holds a line containing `text` (`seconds` at most; Radicale writes from its worker
    /// threads, a moment after it answered). Whether it appeared.
    public func waitForLog(containing text: String, seconds: Double = 10) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            if log().contains(text) { return true }
            if ContinuousClock.now > deadline { return false }
            usleep(20_000)
        }
    }
}

extension StatusServer {
    /// Where the status server listens and what it allows. The defaults suit a box on a home network: the page is
    /// served to this machine only until the configuration opens it up with `host = "0.0.0.0"` and, ideally, a
    /// password.
    public struct Settings: Sendable, CustomStringConvertible {
        /// An IPv4 or IPv6 address of this machine (`0.0.0.0` or `::` for every network), or `localhost`.
        public var host: String
        /// 0 picks a free port (tests use this); `StatusServer.port` says which.
        public var port: UInt16
        /// When set, every request needs it through HTTP Basic authentication, with any user name.
        public var password: String?
        /// Host names and IP addresses the page answers to besides its own (`localhost`, `contactbox.local`, the
        /// machine's host name and `<name>.local`, its interfaces' addresses, `host` unless a wildcard): a name
        /// in DNS or a router's address that forwards to the box. Any other `Host` gets 421 (DNS rebinding).
        /// Compared without letter case or a trailing dot; the port of a request is not compared.
        public var allowedHosts: [String]
        /// Connections open at once; MHD closes any beyond this as soon as it accepts them.
        public var maxConnections: Int
        /// Connections open at once from one IP address (an IPv6 address counted whole, as MHD does), so that one
        /// misbehaving device cannot take them all: 4 of the 16 by default, so that a few slow or hostile devices
        /// still leave room for the household's. nil for no such limit.
        public var maxConnectionsPerClient: Int?
        /// An idle connection is closed after this long (whole seconds: MHD takes no fraction). A request that keeps
        /// its connection busy with a byte now and then is closed 10 s after it began (``RequestDeadlines``).
        public var connectionTimeout: Duration
        /// HTTPS with this certificate and key (PEM); nil for plain HTTP.
        public var tls: TLS?

        public struct TLS: Sendable {
            public var certificate: String
            public var key: String

            public init(certificate: String, key: String) {
                self.certificate = certificate
                self.key = key
            }
        }

        /// Memory MHD may use per connection for reading the request and writing the response headers. A request
        /// to this server is a line and a few headers; anything larger is refused by MHD itself:
        /// > MHD_OPTION_CONNECTION_MEMORY_LIMIT: Maximum memory size per connection (followed by a `size_t`).
        /// 32 KiB leaves room for a browser's cookies and headers; MHD answers a larger request head with
        /// 431 Request Header Fields Too Large.
        static let connectionMemoryBytes = 32 * 1024

        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080, password: String? = nil, allowedHosts: [String] = [],
            maxConnections: Int = 16, maxConnectionsPerClient: Int? = 4, connectionTimeout: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.password = password
            self.allowedHosts = allowedHosts
            self.maxConnections = maxConnections
            self.maxConnectionsPerClient = maxConnectionsPerClient
            self.connectionTimeout = connectionTimeout
        }

        /// Never the password itself: settings end up in logs.
        public var description: String {
            "host \(host), port \(port), password \(password == nil ? "none" : "set"), "
                + "allowed hosts \(allowedHosts.isEmpty ? "own only" : allowedHosts.joined(separator: " ")), at most \(maxConnections) "
                + "connections (\(maxConnectionsPerClient.map { "\($0)" } ?? "any number") per client), "
                + "\(connectionTimeout.components.seconds) s timeout"
        }

        func validate() throws(StatusServerError) {
            let address = displayAddress(host, port)
            func invalid(_ problem: String) -> StatusServerError {
                StatusServerError(
                    code: .invalidSettings, message: "Cannot show the status page on \(address): \(problem)")
            }
            guard (1...10_000).contains(maxConnections) else {
                throw invalid("the connection limit must be between 1 and 10000, not \(maxConnections)")
            }
            if let perClient = maxConnectionsPerClient, !(1...maxConnections).contains(perClient) {
                throw invalid(
                    "the connection limit per client must be between 1 and the connection limit (\(maxConnections)), "
                        + "not \(perClient)")
            }
            guard (Duration.seconds(1)...Duration.seconds(3600)).contains(connectionTimeout) else {
                throw invalid(
                    "the connection timeout must be between 1 and 3600 seconds, not "
                        + "\(connectionTimeout.components.seconds)")
            }
            for allowed in allowedHosts where RequestGuard.normalizedHost(allowed) == nil {
                throw invalid(
                    "allowed host \"\(allowed)\" is not a host name or an IP address (write it without a port or "
                        + "scheme, such as \"contactbox.example.org\" or \"192.168.1.20\")")
            }
            if let password {
                // An empty password would look protected and not be; a line break can never be typed at the prompt.
                guard !password.isEmpty else {
                    throw invalid("the password is empty; set one, or remove it to leave the page open")
                }
                guard !password.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                    throw invalid("the password contains a control character (a line break?); browsers cannot send it")
                }
            }
        }
    }
}

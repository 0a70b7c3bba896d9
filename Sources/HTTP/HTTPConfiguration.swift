/// How a client authenticates when it has credentials.
public enum AuthScheme: Sendable, Equatable {
    /// Basic, sent with the first request (no challenge round trip). The default.
    case basic
    /// Digest (RFC 7616), answered after the server's first challenge.
    case digest
    /// Asks the server first: sends no credentials until a 401's `WWW-Authenticate` says what it takes, and answers
    /// with the best of Basic and Digest it offers (libcurl's choice); that scheme stays for the rest of the client's
    /// life (Basic with the request from then on, Digest answering at once). A password never goes as Basic to a
    /// server that offers Digest. Should a server later challenge Basic with Digest, Digest it is from then on.
    case automatic
}

/// Where an OAuth 2.0 access token comes from (RFC 6750): asked before each request that carries credentials, told
/// when the server refused one. Renewing it (at the issuer's token endpoint) is the provider's business.
public protocol BearerTokens: AnyObject, Sendable {
    /// The access token to send now, renewed first when it has expired or is about to. nil: none can be had (the
    /// grant was revoked: the person must sign in again); the request then goes without, and the server's 401 is
    /// its answer. Throws when the issuer cannot be reached: the request fails with that error.
    func current() throws(HTTPError) -> String?
    /// The server answered 401 to `token`: the next ``current()`` renews it.
    func refused(_ token: String)
}

/// Settings of one `HTTPClient`, fixed when it is created.
public struct HTTPConfiguration: Sendable {
    /// Sent as `User-Agent` with every request.
    public var userAgent: String
    public var credentials: Credentials?
    public var auth: AuthScheme
    /// OAuth 2.0 bearer tokens instead of `credentials`; sent where credentials would be (`OriginPolicy`), and
    /// renewed once when a server answers 401.
    public var bearer: (any BearerTokens)?
    /// The time to establish a connection (TCP and TLS), to the millisecond.
    public var connectTimeout: Duration
    /// The time below `lowSpeedLimit` bytes a second (waiting for the first byte included) before a transfer fails
    /// with `.timeout`: a server that trickles bytes holds a request a minute, not for ever. libcurl counts it in
    /// whole seconds, so a fraction rounds up.
    public var transferTimeout: Duration
    public var lowSpeedLimit: Int
    /// The time a whole transfer may take, whatever its progress, to the millisecond; zero means no cap. Five
    /// minutes carry a 2 MiB card over a 64 kbit/s link, and a 50,000-contact listing over 1 Mbit/s.
    public var totalTimeout: Duration
    /// The end of the turn this client serves (one remote's sync in a pass), if any: each hop's total timeout is
    /// capped by what is left of it, and a hop that would start after it fails at once with `.timeout`. So every
    /// request and retry of a turn together end by this point, whatever each one's own limits.
    public var deadline: ContinuousClock.Instant?
    /// A CA bundle file. Unset by default: loading the whole system bundle costs memory per connection (Docs/tls.md).
    public var caFile: String?
    /// A directory of hashed CA certificates, looked up on demand. TLS verification is always on.
    public var caPath: String?
    /// Requests in flight at once in `sendAll`, and connections kept open.
    public var maxConcurrent: Int
    /// Redirects followed per request before it fails with `.protocolError`.
    public var maxRedirects: Int

    public init(
        userAgent: String = "ContactBox/0",
        credentials: Credentials? = nil,
        auth: AuthScheme = .basic,
        connectTimeout: Duration = .seconds(10),
        transferTimeout: Duration = .seconds(60),
        lowSpeedLimit: Int = 1024,
        totalTimeout: Duration = .seconds(300),
        caFile: String? = nil,
        caPath: String? = "/etc/ssl/certs",
        maxConcurrent: Int = 4,
        maxRedirects: Int = 5
    ) {
        self.userAgent = userAgent
        self.credentials = credentials
        self.auth = auth
        self.connectTimeout = connectTimeout
        self.transferTimeout = transferTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.totalTimeout = totalTimeout
        self.caFile = caFile
        self.caPath = caPath
        self.maxConcurrent = maxConcurrent
        self.maxRedirects = maxRedirects
        self.deadline = nil
        self.bearer = nil
    }
}

import SystemSupport

/// A request to send. Small bodies (an XML query, a card) are sent from memory; a large one (a card with a photo of
/// megabytes) from a spool file's mapping, which curl reads piece by piece, so it is never copied whole.
public struct HTTPRequest: Sendable {
    /// GET, PUT, DELETE, PROPFIND, REPORT, OPTIONS, HEAD ...
    public var method: String
    /// An absolute http or https URL.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: HTTPBody?
    /// The time below the client's low-speed limit this request may take, waiting for the first byte included,
    /// instead of `HTTPConfiguration.transferTimeout`: for an answer the server must compute whole before it sends
    /// any of it (a big listing). The total timeout still bounds it.
    public var lowSpeedTime: Duration?

    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: HTTPBody? = nil, lowSpeedTime: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.lowSpeedTime = lowSpeedTime
    }

    /// A request whose body is in memory.
    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8], lowSpeedTime: Duration? = nil
    ) {
        self.init(method: method, url: url, headers: headers, body: .bytes(body), lowSpeedTime: lowSpeedTime)
    }
}

/// A request's body: bytes in memory, or a spool file sent a piece at a time as curl asks for it (page cache, not
/// the process's footprint), with its length known in advance (`Content-Length`).
public enum HTTPBody: Sendable {
    case bytes([UInt8])
    case spooled(SpoolFile)

    public var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .spooled(let file): file.count
        }
    }

    /// The body's bytes in memory, a spooled one read whole: for tests, never for sending (`TransferContext`
    /// reads a spooled body a piece at a time).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch self {
        case .bytes(let bytes): try bytes.withUnsafeBytes(body)
        case .spooled(let file): try file.readAll().withUnsafeBytes(body)
        }
    }
}

/// A request to send. Bodies are small (a vCard, an XML query) and sent from memory.
public struct HTTPRequest: Sendable {
    /// GET, PUT, DELETE, PROPFIND, REPORT, OPTIONS, HEAD ...
    public var method: String
    /// An absolute http or https URL.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?
    /// The time below the client's low-speed limit this request may take, waiting for the first byte included,
    /// instead of `HTTPConfiguration.transferTimeout`: for an answer the server must compute whole before it sends
    /// any of it (a big listing). The total timeout still bounds it.
    public var lowSpeedTime: Duration?

    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil, lowSpeedTime: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.lowSpeedTime = lowSpeedTime
    }
}

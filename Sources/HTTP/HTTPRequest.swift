/// A request to send. Bodies are small (a vCard, an XML query) and sent from memory.
public struct HTTPRequest: Sendable {
    /// GET, PUT, DELETE, PROPFIND, REPORT, OPTIONS, HEAD ...
    public var method: String
    /// An absolute http or https URL.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

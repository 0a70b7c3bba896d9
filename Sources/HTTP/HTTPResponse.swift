/// The final response to a request, after redirects and authentication round trips.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The header fields of the final response only.
    public var headers: [HTTPHeader]
    /// The effective URL after redirects.
    public var url: String

    public init(status: Int, headers: [HTTPHeader], url: String) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    /// The value of the first header called `name`, ignoring case, e.g. `header("Retry-After")`.
    public func header(_ name: String) -> String? {
        headers.first(named: name)
    }
}

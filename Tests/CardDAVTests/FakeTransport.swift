import HTTP
import Logging

@testable import CardDAV

/// Canned answers, one per request in order, delivered in small chunks like a network would.
final class FakeTransport: DAVTransport {
    struct Reply {
        var status: Int
        var body: String
        var headers: [HTTPHeader] = []
        /// The effective URL after redirects; the request URL when nil.
        var url: String?
        var error: HTTPError?
    }

    var replies: [Reply]
    private(set) var requests: [HTTPRequest] = []

    init(_ replies: [Reply]) {
        self.replies = replies
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        requests.append(request)
        precondition(!replies.isEmpty, "unexpected request \(request.method) \(request.url)")
        let reply = replies.removeFirst()
        if let error = reply.error { throw error }
        let bytes = Array(reply.body.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + 97, bytes.count)
            do {
                try bytes[start..<end].withUnsafeBytes { try onBody($0) }
            } catch {
                throw HTTPError(.aborted, "body handler threw", url: request.url)
            }
            start = end
        }
        return HTTPResponse(status: reply.status, headers: reply.headers, url: reply.url ?? request.url)
    }

    var bodies: [String] { requests.map { $0.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? "" } }

    func header(_ name: String, of index: Int) -> String? {
        requests[index].headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

func makeClient(_ replies: [FakeTransport.Reply]) -> (CardDAVClient, FakeTransport) {
    let transport = FakeTransport(replies)
    return (CardDAVClient(transport: transport, logger: Logger(label: "test.carddav")), transport)
}

import HTTP
import Logging
import SystemSupport

/// What the client needs from HTTP; `HTTPClient` is the real one, tests pass a fake.
protocol DAVTransport: AnyObject {
    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse
    /// Sends a request now, to be finished later (`finishExchange`): its body goes to `onBody` meanwhile.
    func startExchange(
        _ request: HTTPRequest, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) -> PendingExchange
    func finishExchange(_ exchange: PendingExchange) throws -> HTTPResponse
    /// Waits until a started request's response head is in; at once where the request is sent when finished.
    func awaitExchangeHead(_ exchange: PendingExchange)
    func cancelExchange(_ exchange: PendingExchange)
    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void) throws
    func redactingSecret(_ text: String) -> String
}

/// A request sent with `startExchange` and not finished yet.
final class PendingExchange {
    let request: HTTPRequest
    let onBody: (UnsafeRawBufferPointer) throws -> Void
    /// The HTTP client's request in flight; nil for a transport that sends it only when it is finished.
    var started: PendingRequest?

    init(_ request: HTTPRequest, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.request = request
        self.onBody = onBody
    }
}

extension DAVTransport {
    /// Text with the client's password replaced; a fake has none.
    func redactingSecret(_ text: String) -> String { text }

    /// Without concurrency (the tests' fakes): the request is sent when it is finished.
    func startExchange(
        _ request: HTTPRequest, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) -> PendingExchange {
        PendingExchange(request, onBody: onBody)
    }

    func finishExchange(_ exchange: PendingExchange) throws -> HTTPResponse {
        try perform(exchange.request, onBody: exchange.onBody)
    }

    func awaitExchangeHead(_ exchange: PendingExchange) {}

    func cancelExchange(_ exchange: PendingExchange) {}

    /// One after the other, for transports without concurrency (the tests' fake).
    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        for (index, request) in requests.enumerated() {
            var body: [UInt8] = []
            do {
                let response = try perform(request) { chunk in
                    if body.count < maxBody { body += chunk.prefix(maxBody - body.count) }
                }
                try completion(index, .success((response, body)))
            } catch let error as HTTPError {
                try completion(index, .failure(error))
            }
        }
    }
}

extension HTTPClient: DAVTransport {
    func startExchange(
        _ request: HTTPRequest, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) -> PendingExchange {
        let exchange = PendingExchange(request, onBody: onBody)
        exchange.started = start(request, onBody: onBody)
        return exchange
    }

    func finishExchange(_ exchange: PendingExchange) throws -> HTTPResponse {
        guard let started = exchange.started else { return try perform(exchange.request, onBody: exchange.onBody) }
        return try finish(started)
    }

    func awaitExchangeHead(_ exchange: PendingExchange) {
        if let started = exchange.started { awaitHead(started) }
    }

    func cancelExchange(_ exchange: PendingExchange) {
        if let started = exchange.started { cancel(started) }
    }
}

/// A CardDAV client (RFC 6352, RFC 6578) over one `HTTPClient`: discovery, listings, sync reports, multiget and
/// the item writes. Synchronous, like the HTTP client under it; every listing is streamed to a callback.
///
/// ETags are opaque: they are handed over and sent back (`If-Match`) exactly as the server wrote them, weak `W/`,
/// unquoted or with Apache's `-gzip` suffix alike. Hrefs are kept exactly as the server sent them too.
public final class CardDAVClient {
    /// Items per addressbook-multiget request: servers have run out of memory near 700 and failed near 1,000.
    public static let maxMultigetItems = 100
    /// Bytes of an error body kept to find out why a request failed (a `DAV:error`, a quota message).
    static let errorBodyPrefix = 16 << 10

    let transport: any DAVTransport
    let logger: Logger

    public init(http: HTTPClient, logger: Logger) {
        self.transport = http
        self.logger = logger
    }

    init(transport: any DAVTransport, logger: Logger) {
        self.transport = transport
        self.logger = logger
    }

    /// Sends a PROPFIND or REPORT and streams the multistatus to `onResponse` as it arrives. Throws the
    /// classified error for any status but 207, and `.malformedResponse` for a body that is not a multistatus.
    func multistatus(
        _ method: String, _ url: String, depth: String?, body: [UInt8], lowSpeedTime: Duration? = nil,
        onResponse: (MultistatusResponse) throws -> Void
    ) throws -> (HTTPResponse, MultistatusSummary) {
        var request = Self.multistatusRequest(method, url, depth: depth, body: body)
        request.lowSpeedTime = lowSpeedTime
        return try withoutActuallyEscaping(onResponse) { onResponse in
            let reception = MultistatusReception(method: method, url: url, onResponse: onResponse)
            let response: HTTPResponse
            do {
                response = try transport.perform(request) { try reception.receive($0) }
            } catch {
                throw reception.failure(error, client: self)
            }
            return (response, try reception.complete(response, client: self))
        }
    }

    static func multistatusRequest(_ method: String, _ url: String, depth: String?, body: [UInt8]) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "application/xml; charset=utf-8")]
        if let depth { headers.append(HTTPHeader("Depth", depth)) }
        return HTTPRequest(method: method, url: url, headers: headers, body: body)
    }

    /// Sends a request and keeps at most `keep` bytes of the answer (an item, or the start of an error page);
    /// `complete` says whether that was all of it. Streaming keeps the status even when an error page is big.
    func exchange(_ request: HTTPRequest, keep: Int) throws -> (HTTPResponse, body: [UInt8], complete: Bool) {
        var body: [UInt8] = []
        var complete = true
        do {
            let response = try transport.perform(request) { chunk in
                guard complete else { return }
                if body.count + chunk.count > keep {
                    complete = false
                    body += chunk.prefix(keep - body.count)
                } else {
                    body += chunk
                }
            }
            return (response, body, complete)
        } catch {
            throw networkError(error, request.method, request.url)
        }
    }

    /// The error for a failed response. The server's reason goes into the message, with the password scrubbed
    /// from it: a hostile server could echo what it was sent.
    func failure(_ response: HTTPResponse, method: String, url: String, body: ArraySlice<UInt8>) -> CardDAVError {
        var error = CardDAVError.from(
            status: response.status, method: method, url: url, retryAfter: response.header("Retry-After"), body: body)
        error.message = transport.redactingSecret(error.message)
        return error
    }

    /// Why a body cannot be read because it is compressed: ContactBox never asks for compression (Apache's
    /// mod_deflate then changes ETags, and If-Match fails), so a server that compresses anyway gets a message that
    /// says so, instead of libxml2's "Document is empty". nil for a body that is not compressed.
    static func compression(_ response: HTTPResponse, body: ArraySlice<UInt8>) -> String? {
        if let encoding = response.header("Content-Encoding")?.trimmingWhitespace.lowercased(),
            !encoding.isEmpty, encoding != "identity"
        {
            let shown = String(
                String.UnicodeScalarView(encoding.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(40))
            )
            return "a compressed body (Content-Encoding: \(shown)), which was not asked for; not read"
        }
        if body.starts(with: [0x1F, 0x8B]) {
            return "a gzip-compressed body that does not say so (no Content-Encoding); not read"
        }
        return nil
    }

    func networkError(_ error: any Error, _ method: String, _ url: String) -> any Error {
        guard let error = error as? HTTPError else { return error }
        return CardDAVError(.network(error), "\(method) \(DAVURL.path(of: url)): \(error.message)")
    }
}

@available(*, unavailable)
extension CardDAVClient: Sendable {}

import HTTP
import Logging
import VCard

extension CardDAVClient {
    /// The URL for a new item with this UID in a collection: the collection URL plus `Card.fileName(forUID:)`,
    /// percent-encoded.
    public static func itemURL(bookURL: String, uid: String) -> String {
        DAVURL.item(Card.fileName(forUID: uid), in: bookURL)
    }

    /// Uploads a vCard. `ifMatch` (an ETag exactly as received) replaces only that version; `ifNoneMatchAny`
    /// creates only if nothing is there. Both failing give `.preconditionFailed`.
    public func put(url: String, vcard: String, ifMatch: String?, ifNoneMatchAny: Bool) throws -> PutResult {
        try put(url: url, vcard: .bytes(Array(vcard.utf8)), ifMatch: ifMatch, ifNoneMatchAny: ifNoneMatchAny)
    }

    /// The same for a card's text, sent from its spool file where it is large (never copied whole).
    public func put(url: String, vcard: CardText, ifMatch: String?, ifNoneMatchAny: Bool) throws -> PutResult {
        try Self.checkIfMatch(ifMatch, method: "PUT", url: url)
        logger.debug(
            "carddav put", metadata: ["carddav.href": "\(DAVURL.path(of: url))", "carddav.create": "\(ifNoneMatchAny)"])
        let request = Self.putRequest(url: url, body: vcard, ifMatch: ifMatch, ifNoneMatchAny: ifNoneMatchAny)
        let (response, body, _) = try exchange(request, keep: Self.errorBodyPrefix)
        guard (200..<300).contains(response.status) else {
            throw failure(response, method: "PUT", url: url, body: body[...])
        }
        return PutResult(status: response.status, etag: Self.usableETag(response))
    }

    private static func putRequest(url: String, body: CardText, ifMatch: String?, ifNoneMatchAny: Bool) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "text/vcard; charset=utf-8")]
        if let ifMatch { headers.append(HTTPHeader("If-Match", ifMatch)) }
        if ifNoneMatchAny { headers.append(HTTPHeader("If-None-Match", "*")) }
        let content: HTTPBody =
            switch body {
            case .bytes(let bytes): .bytes(bytes)
            case .spooled(let file): .spooled(file)
            }
        let patient = body.count >= largeUploadBytes ? listingLowSpeedTime : nil
        return HTTPRequest(method: "PUT", url: url, headers: headers, body: content, lowSpeedTime: patient)
    }

    /// An ETag header that can be sent back; nil (asked for again, or unknown) for one that cannot (`DAVETag`).
    static func usableETag(_ response: HTTPResponse) -> String? {
        response.header("ETag").flatMap { DAVETag.problem($0) == nil ? $0 : nil }
    }

    /// Never sends an `If-Match` that would break the request's headers: that write fails alone instead.
    static func checkIfMatch(_ etag: String?, method: String, url: String) throws(CardDAVError) {
        guard let etag, let problem = DAVETag.problem(etag) else { return }
        throw CardDAVError(.rejected(status: 0), "\(method) \(DAVURL.path(of: url)): not sent: \(problem)")
    }

    /// One write of a batch: a PUT of a vCard's text (with its preconditions) or a DELETE. The request body
    /// shares the text's storage, a spool file where it is large: a chunk of uploads holds each card's text once.
    public enum Write: Sendable {
        case put(url: String, vcard: CardText, ifMatch: String?, ifNoneMatchAny: Bool)
        case delete(url: String, ifMatch: String?)
    }

    /// Carries out independent writes with at most `maxConcurrent` (and the HTTP client's limit) in flight, and
    /// returns one result per write, in order: the PUT's result (a DELETE's has no ETag) or that write's
    /// classified error.
    public func perform(_ writes: [Write], maxConcurrent: Int? = nil) throws -> [Result<PutResult, CardDAVError>] {
        var results = [Result<PutResult, CardDAVError>](
            repeating: .failure(CardDAVError(.malformedResponse, "not sent")), count: writes.count)
        var refused: [Int: CardDAVError] = [:]
        for (index, write) in writes.enumerated() {
            let (method, url, ifMatch) =
                switch write {
                case .put(let url, _, let ifMatch, _): ("PUT", url, ifMatch)
                case .delete(let url, let ifMatch): ("DELETE", url, ifMatch)
                }
            do {
                try Self.checkIfMatch(ifMatch, method: method, url: url)
            } catch {
                refused[index] = error
            }
        }
        let requests = writes.map { write -> HTTPRequest in
            switch write {
            case .put(let url, let vcard, let ifMatch, let ifNoneMatchAny):
                return Self.putRequest(url: url, body: vcard, ifMatch: ifMatch, ifNoneMatchAny: ifNoneMatchAny)
            case .delete(let url, let ifMatch):
                return HTTPRequest(
                    method: "DELETE", url: url, headers: ifMatch.map { [HTTPHeader("If-Match", $0)] } ?? [])
            }
        }
        let sent = requests.indices.filter { refused[$0] == nil }
        for (index, error) in refused { results[index] = .failure(error) }
        try transport.sendAll(sent.map { requests[$0] }, maxBody: Self.errorBodyPrefix, maxConcurrent: maxConcurrent) {
            position, outcome in
            let index = sent[position]
            let request = requests[index]
            switch outcome {
            case .success(let (response, _)) where (200..<300).contains(response.status):
                results[index] = .success(PutResult(status: response.status, etag: Self.usableETag(response)))
            case .success(let (response, body)):
                results[index] = .failure(failure(response, method: request.method, url: request.url, body: body[...]))
            case .failure(let error):
                results[index] = .failure(
                    CardDAVError(.network(error), "\(request.method) \(DAVURL.path(of: request.url)): \(error.message)")
                )
            }
        }
        return results
    }

    /// Deletes an item, only if it is still at `ifMatch` when given.
    public func delete(url: String, ifMatch: String?) throws {
        try Self.checkIfMatch(ifMatch, method: "DELETE", url: url)
        var headers: [HTTPHeader] = []
        if let ifMatch { headers.append(HTTPHeader("If-Match", ifMatch)) }
        logger.debug("carddav delete", metadata: ["carddav.href": "\(DAVURL.path(of: url))"])
        let request = HTTPRequest(method: "DELETE", url: url, headers: headers)
        let (response, body, _) = try exchange(request, keep: Self.errorBodyPrefix)
        guard (200..<300).contains(response.status) else {
            throw failure(response, method: "DELETE", url: url, body: body[...])
        }
    }

    /// Fetches one item: its ETag (nil when the server sent none) and its text.
    public func get(url: String) throws -> (etag: String?, text: String) {
        let (etag, text) = try getBytes(url: url)
        return (etag, text.string)
    }

    /// Fetches one item's bytes exactly as sent, for a card that may not be UTF-8: in memory where it is small, in
    /// a spool file past `CardText.spoolThreshold` (`CardCollector`), refused past `CardReader.Limits.maxCardBytes`
    /// (what came is counted, not kept). The ETag is nil when the server sent none, and a compressed answer (which
    /// was not asked for) is refused.
    public func getBytes(url: String) throws -> (etag: String?, bytes: CardText) {
        let request = HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Accept", "text/vcard")])
        var collector = CardCollector()
        let response: HTTPResponse
        do {
            response = try transport.perform(request) { collector.append($0) }
        } catch {
            throw networkError(error, request.method, request.url)
        }
        let start = collector.prefix(Self.errorBodyPrefix)
        guard (200..<300).contains(response.status) else {
            throw failure(response, method: "GET", url: url, body: start[...])
        }
        if let compressed = Self.compression(response, body: start[...]) {
            throw CardDAVError(.malformedResponse, "GET \(DAVURL.path(of: url)): \(compressed)")
        }
        if let etag = response.header("ETag"), let problem = DAVETag.problem(etag) {
            throw CardDAVError(.malformedResponse, "GET \(DAVURL.path(of: url)): \(problem)")
        }
        switch collector.finish() {
        case .success(let text): return (response.header("ETag"), text)
        case .failure(let refusal):
            throw CardDAVError(
                .malformedResponse, "GET \(DAVURL.path(of: url)): \(response.status): \(refusal.message)")
        }
    }
}

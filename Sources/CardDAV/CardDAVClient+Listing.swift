import HTTP
import Logging

extension CardDAVClient {
    /// RFC 6578 sync-collection (sync-level 1, ETags) from `token` (nil or "": everything). Truncated results (a
    /// 507 response for the collection, or `DAV:number-of-matches-within-limits`) are followed with the new
    /// token until complete. A token the server no longer accepts throws `.invalidSyncToken`: list instead.
    /// Truncated sync-collection rounds followed in one listing: 50,000 items at 50 a round.
    static let maxSyncRounds = 1_000
    /// How long a listing may go below the low-speed limit, waiting for its first byte included: a server
    /// computes some listings whole before it sends a byte (Radicale 3.9, a token-less sync-collection of a big
    /// book: `Docs/servers.md`, *Speed*). The total timeout (5 minutes) still bounds it.
    static let listingLowSpeedTime = Duration.seconds(240)

    public func syncCollection(
        bookURL: String, token: String?, onChange: (SyncChange) throws -> Void
    ) throws -> SyncCollectionResult {
        var result = SyncCollectionResult(token: token ?? "", requests: 0, changed: 0, removed: 0)
        var current = token
        let path = DAVURL.path(of: bookURL)
        while true {
            let listedBefore = result.changed + result.removed
            result.requests += 1
            logger.debug("carddav sync-collection", metadata: ["carddav.book": "\(path)"])
            let (truncated, summary) = try bookReport(
                bookURL, depth: "0", body: DAVRequestBody.syncCollection(token: current)
            ) { response in
                if let start = response.overlongHrefStart {
                    if response.status != 404 { try onChange(.unusable(href: start, why: Self.overlongHref)) }
                    return
                }
                if response.damaged.contains("href") {
                    // Not an href this store can have seen: skipping it loses nothing, and is reported.
                    if response.status != 404 {
                        try onChange(.unusable(href: response.href, why: "its href is not UTF-8"))
                    }
                    return
                }
                switch response.status {
                case 404?:
                    result.removed += 1
                    try onChange(.removed(href: response.href))
                case let status? where !(200..<300).contains(status):
                    logger.debug(
                        "carddav sync-collection member skipped",
                        metadata: ["carddav.href": "\(response.href)", "carddav.status": "\(status)"])
                default:
                    let properties = response.properties
                    guard !properties.isCollection else { return }
                    result.changed += 1
                    try onChange(
                        .changed(href: response.href, etag: Self.listedETag(response), size: properties.contentLength))
                }
            }
            guard let newToken = summary.syncToken, !newToken.isEmpty else {
                throw CardDAVError(.malformedResponse, "REPORT \(path): 207 without a DAV:sync-token")
            }
            result.token = newToken
            guard truncated else { return result }
            // A server that says "truncated" but hands back the same token, or nothing new, would have us loop.
            guard newToken != current else {
                throw CardDAVError(.malformedResponse, "REPORT \(path): truncated result without a new sync token")
            }
            guard result.changed + result.removed > listedBefore else {
                throw CardDAVError(.malformedResponse, "REPORT \(path): a truncated result that lists nothing")
            }
            guard result.requests < Self.maxSyncRounds else {
                throw CardDAVError(
                    .malformedResponse, "REPORT \(path): still truncated after \(Self.maxSyncRounds) requests; gave up")
            }
            current = newToken
        }
    }

    /// The collection's `DAV:sync-token` property (RFC 6578 4), from a PROPFIND with depth 0; nil when the server
    /// gives none. Read before a listing by PROPFIND, it lets the next sync-collection start from a state that
    /// predates the listing: a change in between is listed twice, never missed.
    public func currentSyncToken(bookURL: String) throws -> String? {
        logger.debug("carddav sync-token", metadata: ["carddav.book": "\(DAVURL.path(of: bookURL))"])
        let book = DAVURL.Resource(bookURL)
        var token: String?
        _ = try multistatus(
            "PROPFIND", bookURL, depth: "0", body: DAVRequestBody.propfind(["D:sync-token"]),
            lowSpeedTime: Self.listingLowSpeedTime
        ) { response in
            guard book.isNamed(by: response.href), !response.damaged.contains("sync-token") else { return }
            if let value = response.properties.syncToken, !value.isEmpty { token = value }
        }
        return token
    }

    /// Why an item whose href is over the parser's cap cannot be synced: no request can name it.
    static let overlongHref = "its href is longer than \(MultistatusParser.Limits.maxTextBytes >> 10) KiB"

    /// Every item of a collection with its ETag and its size (nil where the server gives none), from a streamed
    /// PROPFIND with depth 1. The collection itself and sub-collections are left out; an item listed without a
    /// usable ETag gets "". An item whose href is not UTF-8, or is too long to use, goes to `onUnusable` instead
    /// (named by the href's start).
    public func list(
        bookURL: String, onUnusable: (_ href: String, _ why: String) throws -> Void = { _, _ in },
        onItem: (_ href: String, _ etag: String, _ size: Int?) throws -> Void
    ) throws {
        logger.debug("carddav list", metadata: ["carddav.book": "\(DAVURL.path(of: bookURL))"])
        let book = DAVURL.Resource(bookURL)
        _ = try multistatus(
            "PROPFIND", bookURL, depth: "1",
            body: DAVRequestBody.propfind(["D:getetag", "D:getcontentlength", "D:resourcetype"]),
            lowSpeedTime: Self.listingLowSpeedTime
        ) { response in
            if let start = response.overlongHrefStart {
                try onUnusable(start, Self.overlongHref)
                return
            }
            guard !book.isNamed(by: response.href) else { return }
            if let status = response.status, !(200..<300).contains(status) { return }
            let properties = response.properties
            guard !properties.isCollection else { return }
            if response.damaged.contains("href") {
                try onUnusable(response.href, "its href is not UTF-8")
            } else {
                try onItem(response.href, Self.listedETag(response), properties.contentLength)
            }
        }
    }

    /// Every card of a collection with its ETag, by one addressbook-query whose filter matches every card
    /// (`DAVRequestBody.queryAll`), streamed: `onItem` gets each item as it is read, as a multiget's. Sub-collections
    /// and the collection itself are left out. Returns false when the server cut the answer short (507 for the
    /// collection, or `DAV:number-of-matches-within-limits`): the items given are then only some of the book's; and
    /// when it named an item by an href too long to use, which the listing that follows reports.
    public func queryAll(bookURL: String, version: String? = nil, onItem: (MultigetItem) throws -> Void) throws -> Bool
    {
        let path = DAVURL.path(of: bookURL)
        logger.debug("carddav query of every card", metadata: ["carddav.book": "\(path)"])
        var unusable = false
        let (truncated, _) = try bookReport(bookURL, depth: "1", body: DAVRequestBody.queryAll(version: version)) {
            response in
            guard response.overlongHrefStart == nil else {
                unusable = true
                return
            }
            guard !response.properties.isCollection else { return }
            try onItem(Self.item(response, path: path))
        }
        return !truncated && !unusable
    }

    /// A listing REPORT on the book, streamed: `onMember` gets every response but the book's own, which only says
    /// whether the server cut the answer short (507, RFC 6578 3.6 and RFC 6352 8.6.1), as
    /// `DAV:number-of-matches-within-limits` does.
    private func bookReport(
        _ bookURL: String, depth: String, body: [UInt8], onMember: (MultistatusResponse) throws -> Void
    ) throws -> (truncated: Bool, summary: MultistatusSummary) {
        let book = DAVURL.Resource(bookURL)
        var truncated = false
        let (_, summary) = try multistatus(
            "REPORT", bookURL, depth: depth, body: body, lowSpeedTime: Self.listingLowSpeedTime
        ) { response in
            // An href over its cap is left empty, which would read as the book's own: the member goes on, named.
            if response.overlongHrefStart == nil, book.isNamed(by: response.href) {
                if response.status == 507 { truncated = true }
                return
            }
            try onMember(response)
        }
        return (truncated || summary.isTruncated, summary)
    }

    /// A listed item's ETag, or "" (unknown: the item is fetched and compared) when there is none, or one that
    /// was not UTF-8 or cannot be sent back (`DAVETag`). The fetch reports such an item if its ETag stays bad.
    static func listedETag(_ response: MultistatusResponse) -> String {
        guard let etag = response.properties.etag, !response.damaged.contains("getetag"), DAVETag.problem(etag) == nil
        else { return "" }
        return etag
    }

    /// Fetches items with addressbook-multiget (RFC 6352 8.7), streamed: `onItem` gets each one as it is read.
    /// At most `maxMultigetItems` hrefs go in one request; more are sent in several. `version` asks for that vCard
    /// version (only where the book supports it); nil takes the server's default.
    public func multiget(
        bookURL: String, hrefs: [String], version: String? = nil, onItem: (MultigetItem) throws -> Void
    ) throws {
        var start = 0
        while start < hrefs.count {
            let batch = Array(hrefs[start..<min(start + Self.maxMultigetItems, hrefs.count)])
            start += batch.count
            try multigetBatch(bookURL: bookURL, hrefs: batch, version: version, onItem: onItem)
        }
    }

    private func multigetBatch(
        bookURL: String, hrefs: [String], version: String?, onItem: (MultigetItem) throws -> Void
    ) throws {
        let path = DAVURL.path(of: bookURL)
        logger.debug("carddav multiget", metadata: ["carddav.book": "\(path)", "carddav.count": "\(hrefs.count)"])
        _ = try multistatus(
            "REPORT", bookURL, depth: nil, body: DAVRequestBody.multiget(hrefs: hrefs, version: version)
        ) { response in
            try onItem(Self.item(response, path: path))
        }
    }

    static func item(_ response: MultistatusResponse, path: String) -> MultigetItem {
        let properties = response.properties
        let propstatStatus = response.propstats.first { $0.properties.addressDataText != nil }?.status
        let status = response.status ?? propstatStatus ?? response.propstats.first?.status ?? 200
        let what = "REPORT \(path): \(response.href)"
        let outcome: MultigetItem.Outcome
        if let problem = response.problem {
            outcome = .failed(CardDAVError(.malformedResponse, "\(what): \(problem)"))
        } else if response.damaged.contains("href") {
            outcome = .failed(CardDAVError(.malformedResponse, "\(what): its href is not UTF-8; skipped"))
        } else if status == 404 || status == 410 {
            outcome = .missing
        } else if !(200..<300).contains(status) {
            let error = CardDAVError.from(status: status, method: "REPORT", url: path, retryAfter: nil, body: [])
            outcome = .failed(CardDAVError(error.kind, "\(what): \(status)"))
        } else if response.damaged.contains("getetag") {
            outcome = .failed(CardDAVError(.malformedResponse, "\(what): its ETag is not UTF-8; skipped"))
        } else if let problem = properties.etag.flatMap(DAVETag.problem) {
            outcome = .failed(CardDAVError(.malformedResponse, "\(what): \(problem); skipped"))
        } else if response.damaged.contains("address-data") {
            outcome = .damaged("its card in the multistatus is not UTF-8")
        } else if let text = properties.addressDataText {
            outcome = .card(text)
        } else {
            outcome = .failed(CardDAVError(.malformedResponse, "\(what): no address-data"))
        }
        return MultigetItem(href: response.href, etag: properties.etag, status: status, outcome: outcome)
    }
}

/// An addressbook-multiget sent and not read yet (`CardDAVClient.startMultiget`): the server works on it while the
/// caller does something else, such as writing the last one's cards to the store. Its answer waits in the socket
/// until `finishMultiget` reads and parses it.
public final class PendingMultiget {
    public let hrefs: [String]
    let exchange: PendingExchange
    let reception: MultistatusReception
    let received: ReceivedItems

    init(hrefs: [String], exchange: PendingExchange, reception: MultistatusReception, received: ReceivedItems) {
        self.hrefs = hrefs
        self.exchange = exchange
        self.reception = reception
        self.received = received
    }
}

/// The items of a pending multiget read so far.
final class ReceivedItems {
    var items: [MultigetItem] = []
}

@available(*, unavailable)
extension PendingMultiget: Sendable {}

@available(*, unavailable)
extension ReceivedItems: Sendable {}

extension CardDAVClient {
    /// Sends an addressbook-multiget of at most `maxMultigetItems` hrefs and returns at once; `finishMultiget`
    /// reads the rest of the answer and returns its items, `cancelMultiget` abandons it.
    public func startMultiget(bookURL: String, hrefs: [String], version: String? = nil) -> PendingMultiget {
        let path = DAVURL.path(of: bookURL)
        logger.debug("carddav multiget", metadata: ["carddav.book": "\(path)", "carddav.count": "\(hrefs.count)"])
        let received = ReceivedItems()
        let reception = MultistatusReception(method: "REPORT", url: bookURL) { response in
            received.items.append(Self.item(response, path: path))
        }
        let request = Self.multistatusRequest(
            "REPORT", bookURL, depth: nil, body: DAVRequestBody.multiget(hrefs: hrefs, version: version))
        let exchange = transport.startExchange(request) { try reception.receive($0) }
        return PendingMultiget(hrefs: hrefs, exchange: exchange, reception: reception, received: received)
    }

    /// The items of a started multiget, once its answer is complete; throws as `multiget` does.
    public func finishMultiget(_ pending: PendingMultiget) throws -> [MultigetItem] {
        let response: HTTPResponse
        do {
            response = try transport.finishExchange(pending.exchange)
        } catch {
            throw pending.reception.failure(error, client: self)
        }
        _ = try pending.reception.complete(response, client: self)
        defer { pending.received.items = [] }
        return pending.received.items
    }

    /// Waits until a started multiget's answer has begun (its head is in): Radicale and Xandikos build the whole
    /// answer first, so their work on it is done.
    public func awaitMultigetHead(_ pending: PendingMultiget) {
        transport.awaitExchangeHead(pending.exchange)
    }

    public func cancelMultiget(_ pending: PendingMultiget) {
        transport.cancelExchange(pending.exchange)
        pending.received.items = []
    }
}

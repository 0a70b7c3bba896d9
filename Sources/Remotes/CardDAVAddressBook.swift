import CardDAV
import HTTP
import Logging
import Sync
import VCard

/// A CardDAV address book (RFC 6352) as an `AddressBook`: changes by `sync-collection` (RFC 6578) where the server
/// supports it, else by a streamed PROPFIND listing; fetches by `addressbook-multiget`; writes guarded by ETags.
///
/// Hrefs are handed out percent-decoded, so that an item we created and the same item listed by the server (which
/// may encode `@` or `+`) are one href in the saved state; requests encode them again.
public final class CardDAVAddressBook: AddressBook, ReadsBackWrites {
    public let name: String
    public let bookURL: String
    public let writeVersion: String
    let client: CardDAVClient
    let supportsSyncCollection: Bool
    let retry: RetryPolicy
    let logger: Logger
    /// Writes in flight at once: adapts to what the server takes (see `perform`).
    public private(set) var writeConcurrency: Int
    public let maxWriteConcurrency: Int
    /// The server locks its collection for each write (423 among our own writes in flight, as Xandikos does): it
    /// is written one at a time from then on, and the concurrency never grows (Xandikos answers each overlapping
    /// write 423 only after a wait, `Docs/servers.md`; so one refused round cost more than the writes it held up).
    public private(set) var locksPerWrite: Bool
    /// `learnedWriteConcurrency` for a server that locks per write: kept by the store, read back by `init`.
    public static let oneAtATime = 0
    public var learnedWriteConcurrency: Int? { locksPerWrite ? Self.oneAtATime : writeConcurrency }
    /// Every write is read back, not only one answered without a strong ETag: the server was seen to change what it
    /// was sent (`written`).
    public var readsBackWrites = false
    private var warnedOutside = false
    /// The server refused writes as busy in this run: the concurrency does not grow again until the next run.
    private var refusedInRun = false
    /// A round of this run's writes went out at `writeConcurrency` (see `perform`).
    private var probed = false
    private let members: DAVURL.Members

    /// `concurrency` is where writes start (what this remote took last time, `oneAtATime` for a server that locks
    /// per write); `maxConcurrency` the configured limit.
    public init(
        name: String, book: AddressBookInfo, client: CardDAVClient, retry: RetryPolicy = RetryPolicy(),
        concurrency: Int = 4, maxConcurrency: Int = 4, logger: Logger = Logger(label: "contactbox.carddav")
    ) {
        self.name = name
        self.bookURL = book.url
        self.members = DAVURL.Members(of: book.url)
        self.client = client
        self.supportsSyncCollection = book.supportsSyncCollection
        self.writeVersion = book.supportedVersions.contains("4.0") ? "4.0" : "3.0"
        self.retry = retry.withFreshBudget()
        self.maxWriteConcurrency = max(1, maxConcurrency)
        self.writeConcurrency = min(max(1, concurrency), max(1, maxConcurrency))
        self.locksPerWrite = concurrency == Self.oneAtATime
        self.logger = logger
    }

    /// From a saved token, the server's changes by sync-collection. Without one (a first sync, a full check) or
    /// when the server no longer takes it, every member: by a streamed PROPFIND, with the collection's sync-token
    /// read just before it where the server has sync-collection. That is the cheaper full listing on the servers
    /// measured: Radicale's token-less sync-collection of a big book is far slower, Xandikos's about the same
    /// (`Deploy/bench/speed.sh` prints each listing's floor; the runs: `Docs/measurements/speed.md`). A server
    /// with sync-collection that gives no token property is listed by a token-less sync-collection instead.
    /// `withCards` (a first download): a server whose query is cheaper than its multigets sends every card with
    /// the listing instead (`listingWithCards`).
    public func changes(
        since token: String?, withCards: Bool, changed: (RemoteEntry) throws -> Void,
        removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        if supportsSyncCollection, let token, !token.isEmpty {
            do {
                return try collectionChanges(since: token, changed, removed)
            } catch let error as RemoteError where error.kind == .invalidSyncToken {
                // > the server MUST return ... DAV:valid-sync-token ... the client SHOULD ... full sync (RFC 6578 3.2)
                logger.debug("carddav sync token refused: listing everything", metadata: ["remote.name": "\(name)"])
            }
        }
        return try fullListing(changed, withCards: withCards)
    }

    /// Every member with its ETag, and the token to go on from (nil where the server has no sync-collection).
    private func fullListing(_ changed: (RemoteEntry) throws -> Void, withCards: Bool) throws -> ChangeFeed {
        let token = supportsSyncCollection ? try currentSyncToken() : nil
        if withCards, let token, Self.queryPays(token: token), try listingWithCards(changed) {
            return ChangeFeed(newToken: token, isFullListing: true)
        }
        if supportsSyncCollection && token == nil {
            // An empty token asks for every member (RFC 6578 3.8); a removal means nothing in a whole listing.
            return try collectionChanges(since: nil, changed) { _ in }
        }
        var skipped = SkippedItems()
        try attempt {
            skipped = SkippedItems()
            try client.list(bookURL: bookURL, onUnusable: { skipped.add($0, $1) }) { href, etag, size in
                if let href = member(href) { try changed(RemoteEntry(href: href, etag: etag, size: size)) }
            }
        }
        return ChangeFeed(newToken: token, isFullListing: true, skipped: skipped.messages)
    }

    /// Whether a first download is cheaper by one query for every card (`CardDAVClient.queryAll`) than by a listing
    /// and multigets of 100, told by the server's sync-token. Radicale 3.9 lists its folder and scans that list for
    /// every href of a multiget, so a multiget costs more the bigger the book; a query reads the folder once.
    /// Xandikos evaluates a query's filter card by card, slower than a listing and multigets, and the others are
    /// not measured: they list and fetch. `Deploy/bench/speed.sh` prints both ways' floors (`Docs/servers.md`,
    /// *Speed*).
    static func queryPays(token: String) -> Bool {
        token.hasPrefix("http://radicale.org/ns/sync/")
    }

    /// A first download by `CardDAVClient.queryAll`: each item's entry with its card to `changed`, or without one
    /// (ETag "": fetched and checked as usual) for an item that came without a card that can be read, or with its
    /// size for a large card (past `CardText.spoolThreshold`), which is fetched afterwards too. False when
    /// the query failed or the server cut it short: the listing that follows lists every item again. No retry: a
    /// first download of a big book may not fit in one request's time on a slow link, and the listing and
    /// multigets that follow have their own. Only the request's own errors (`CardDAVError`) lead to the listing;
    /// `changed`'s (the store's, a stop) end the run, as the client hands them back unchanged.
    private func listingWithCards(_ changed: (RemoteEntry) throws -> Void) throws -> Bool {
        do {
            let complete = try client.queryAll(bookURL: bookURL, version: multigetVersion) { item in
                guard let href = member(item.href) else { return }
                switch item.outcome {
                case .missing: return
                case .card(.bytes(let bytes)): try changed(RemoteEntry(href: href, etag: item.etag ?? "", card: bytes))
                case .card(let text):
                    // Spooled, so large: not held with the listing, but fetched later in a page of its own size.
                    try changed(RemoteEntry(href: href, etag: item.etag ?? "", size: text.count))
                case .failed, .damaged: try changed(RemoteEntry(href: href, etag: ""))
                }
            }
            if !complete { logger.notice("The server cut the query for every card short: listing them instead") }
            return complete
        } catch let error as CardDAVError {
            logger.notice(
                "The query for every card failed: listing them instead",
                metadata: ["remote.name": "\(name)", "carddav.error": "\(error)"])
            return false
        }
    }

    /// A sync-collection from `token` (nil: everything, a full listing), the members it names handed on.
    private func collectionChanges(
        since token: String?, _ changed: (RemoteEntry) throws -> Void, _ removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        var skipped = SkippedItems()
        let result = try attempt {
            skipped = SkippedItems()
            return try client.syncCollection(bookURL: bookURL, token: token) { change in
                switch change {
                case .changed(let href, let etag, let size):
                    if let href = member(href) { try changed(RemoteEntry(href: href, etag: etag, size: size)) }
                case .removed(let href):
                    if let href = member(href) { try removed(href) }
                case .unusable(let href, let why):
                    skipped.add(href, why)
                }
            }
        }
        return ChangeFeed(newToken: result.token, isFullListing: token == nil, skipped: skipped.messages)
    }

    /// The book's sync-token, or nil when the server gives none or refuses the question (a token-less
    /// sync-collection follows). Any other failure (unreachable, login, busy) ends the listing here.
    private func currentSyncToken() throws -> String? {
        do {
            return try attempt { try client.currentSyncToken(bookURL: bookURL) }
        } catch let error as RemoteError {
            switch error.kind {
            case .rejected, .malformed:
                logger.debug("carddav sync-token not read", metadata: ["carddav.error": "\(error)"])
                return nil
            default:
                throw error
            }
        }
    }

    /// Items a listing named that cannot be used, one message each (the first 100, then a count).
    struct SkippedItems {
        private(set) var messages: [String] = []
        private var more = 0

        mutating func add(_ href: String, _ why: String) {
            guard messages.count < 100 else {
                more += 1
                messages[messages.count - 1] = "and \(more) more items like it were skipped"
                return
            }
            messages.append("\(Self.shown(href)): \(why); skipped")
        }

        /// The href as it can be shown: its path, bounded, control characters escaped.
        static func shown(_ href: String) -> String {
            let scalars = href.unicodeScalars.prefix(200).map { scalar in
                scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : "\(scalar)"
            }
            return scalars.joined()
        }
    }

    public func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws {
        guard !hrefs.isEmpty else { return }
        var texts = try multiget(hrefs)
        for result in results(of: &texts) { try body(result) }
    }

    /// Pipelined: the next page's multiget is sent as soon as the last one's answer has begun (its head is in:
    /// Radicale and Xandikos build an answer whole before sending any), so the server works on it while this client
    /// reads, parses, plans and writes the last; two at most, one of them in flight, whose answer waits in the
    /// socket, not in this process, until the last page is written. A multiget that fails in flight is sent again
    /// alone, with the retries of `fetch`.
    public func fetchPages(
        _ next: () throws -> [String]?, _ body: ([String], [Result<RemoteCard, RemoteError>]) throws -> Void
    ) throws {
        var current: PendingMultiget?
        var following: PendingMultiget?
        defer {
            for pending in [current, following] { if let pending { client.cancelMultiget(pending) } }
        }
        guard var hrefs = try next() else { return }
        current = startMultiget(hrefs)
        while true {
            if let current { client.awaitMultigetHead(current) }
            let nextHrefs = try next()
            following = nextHrefs.flatMap(startMultiget)
            var items: [MultigetItem]?
            if let pending = current.take() {
                do {
                    items = try client.finishMultiget(pending)
                } catch {
                    logger.debug(
                        "carddav multiget failed in flight: sent again", metadata: ["carddav.error": "\(error)"])
                }
            }
            var texts = try items.take() ?? multiget(hrefs)
            try body(hrefs, results(of: &texts))
            guard let nextHrefs else { return }
            hrefs = nextHrefs
            current = following.take()
        }
    }

    /// A multiget started now, or nil for a page too large for one request (sent by `fetch` instead).
    private func startMultiget(_ hrefs: [String]) -> PendingMultiget? {
        guard !hrefs.isEmpty, hrefs.count <= CardDAVClient.maxMultigetItems else { return nil }
        return client.startMultiget(bookURL: bookURL, hrefs: hrefs.map(encoded), version: multigetVersion)
    }

    /// The richest version the server offers: asked for nothing, Cyrus serves 4.0 cards as 3.0 (and 3.6 loses
    /// their inline photos on the way).
    private var multigetVersion: String? { writeVersion == "4.0" ? "4.0" : nil }

    private func multiget(_ hrefs: [String]) throws -> [MultigetItem] {
        guard !hrefs.isEmpty else { return [] }
        var items: [MultigetItem] = []
        try attempt {
            items.removeAll()
            try client.multiget(bookURL: bookURL, hrefs: hrefs.map(encoded), version: multigetVersion) {
                items.append($0)
            }
        }
        return items
    }

    /// One result per item that still exists: its card, or the error that item alone has. Each item's text is let go
    /// once its card is read, so that a chunk never holds all its cards twice.
    private func results(of items: inout [MultigetItem]) -> [Result<RemoteCard, RemoteError>] {
        var results: [Result<RemoteCard, RemoteError>] = []
        results.reserveCapacity(items.count)
        for index in items.indices {
            let item = items[index]
            items[index].outcome = .missing
            guard let href = member(item.href) else { continue }
            switch item.outcome {
            case .missing:
                continue
            case .failed(let error):
                results.append(.failure(RemoteError(.rejected(status: error.status ?? 0), error.message)))
            case .card(let text):
                results.append(RemoteCard.read(text, href: href, etag: item.etag ?? "", from: name))
            case .damaged(let why):
                results.append(fetchAlone(href, because: why))
            }
        }
        return results
    }

    /// An item whose card the multistatus could not carry as it is (bytes that are not UTF-8): fetched by GET,
    /// whose body is its bytes exactly, and read as a vdir file would be (`CardReader(bytes:)` reads text that is
    /// not UTF-8 as Windows-1252, and says so). A failure costs this item alone.
    private func fetchAlone(_ href: String, because why: String) -> Result<RemoteCard, RemoteError> {
        let url = DAVURL.resolve(encoded(href), against: bookURL)
        do {
            let (etag, text) = try attempt { try client.getBytes(url: url) }
            return RemoteCard.read(text, href: href, etag: etag ?? "", from: name, asBytes: true).map { card in
                var card = card
                card.notes.insert("\(why); fetched alone, as its bytes are", at: 0)
                return card
            }
        } catch {
            let message = (error as? RemoteError)?.message ?? "\(error)"
            return .failure(RemoteError(.rejected(status: 0), "\(name): \(href): \(why), and \(message)"))
        }
    }

    public func hrefForNew(_ card: Card) -> String {
        canonical(CardDAVClient.itemURL(bookURL: bookURL, uid: card.uid ?? ""))
    }

    public func create(_ card: Card) throws -> RemoteEntry {
        let uid = card.uid ?? Card.makeUID()
        let url = CardDAVClient.itemURL(bookURL: bookURL, uid: uid)
        let result = try attempt {
            try client.put(url: url, vcard: card.serializedText(), ifMatch: nil, ifNoneMatchAny: true)
        }
        return written(result, url: url)
    }

    public func update(href: String, etag: String, with card: Card) throws -> String {
        let url = DAVURL.resolve(encoded(href), against: bookURL)
        let result = try attempt {
            try client.put(
                url: url, vcard: card.serializedText(), ifMatch: etag.isEmpty ? nil : etag, ifNoneMatchAny: false)
        }
        return written(result, url: url).etag
    }

    public func delete(href: String, etag: String) throws {
        let url = DAVURL.resolve(encoded(href), against: bookURL)
        do {
            try attempt { try client.delete(url: url, ifMatch: etag.isEmpty ? nil : etag) }
        } catch let error as RemoteError where error.kind == .notFound {
            return  // already gone: what we wanted
        }
    }

    /// Independent writes go out together, at most `writeConcurrency` at a time. Writes the server refuses for
    /// being busy (423 Locked, 429, 503, a 409 while the collection is busy) or loses (5xx, a dropped connection)
    /// are sent again within the pass, with backoff and `Retry-After`. Repeating a write is safe: every one carries
    /// `If-Match` or `If-None-Match`, so a write that did arrive fails with 412 and is re-planned.
    ///
    /// The concurrency: each refusal halves it, and it then stays down for the rest of the run (a server that takes
    /// one write at a time refused each growth again, at the cost of a backoff); in a run without refusals, a batch
    /// taken whole grows it by one, up to `maxWriteConcurrency`. When every refusal of a round is 423 Locked while
    /// several of our writes were in flight, our own writes held the lock: they go again at once, with no backoff,
    /// and every write from then on goes one at a time (`locksPerWrite`). The first round of a run holds only as
    /// many writes as go out at once, the rest follow it: against such a server, only those few are refused, not
    /// a whole chunk's (`Deploy/bench/speed.sh`, 1% each side on Xandikos).
    public func perform(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>] {
        let requests = writes.map(request(for:))
        var results = [Result<RemoteEntry?, RemoteError>](
            repeating: .failure(RemoteError(.malformed, "\(name): not sent")), count: writes.count)
        var waiting = Array(writes.indices)
        var unsent: [Int] = []
        if !probed, writeConcurrency > 1, waiting.count > writeConcurrency {
            unsent = Array(waiting[writeConcurrency...])
            waiting = Array(waiting[..<writeConcurrency])
        }
        probed = true
        var round = 1
        while !waiting.isEmpty {
            let outcomes: [Result<PutResult, CardDAVError>]
            do {
                outcomes = try client.perform(waiting.map { requests[$0] }, maxConcurrent: writeConcurrency)
            } catch {
                for index in waiting + unsent {
                    let failure =
                        (error as? CardDAVError).map { RemoteError($0) } ?? RemoteError(.unreachable, "\(error)")
                    results[index] = .failure(RemoteError(failure.kind, "\(name): \(failure.message)"))
                }
                break
            }
            var again: [Int] = []
            var refused = false
            var onlyLocked = true
            var retryAfter: Duration?
            for (index, outcome) in zip(waiting, outcomes) {
                if case .failure(let error) = outcome, let busy = Self.busy(error), round < Self.writeRounds {
                    again.append(index)
                    refused = refused || busy.refused
                    if case .locked(nil) = error.kind {} else { onlyLocked = false }
                    retryAfter = max(retryAfter ?? .zero, busy.retryAfter ?? .zero)
                    continue
                }
                results[index] = result(outcome, of: requests[index])
            }
            refusedInRun = refusedInRun || refused
            guard !again.isEmpty else {
                waiting = unsent
                unsent = []
                continue
            }
            if onlyLocked, writeConcurrency > 1, waiting.count > 1 {
                writeConcurrency = 1
                locksPerWrite = true
                round += 1
                waiting = again + unsent
                unsent = []
                continue
            }
            if refused { writeConcurrency = max(1, writeConcurrency / 2) }
            guard let delay = retry.delay(afterAttempt: round, retryAfter: retryAfter) else {
                for index in again + unsent {
                    results[index] = .failure(
                        RemoteError(
                            .unavailable(retryAfter: retryAfter),
                            "\(name): busy; asks to wait \((retryAfter ?? .zero).components.seconds) s"))
                }
                break
            }
            logger.notice(
                "Writes refused while busy: sending them again",
                metadata: ["carddav.writes": "\(again.count)", "carddav.concurrency": "\(writeConcurrency)"])
            retry.sleep(delay)
            round += 1
            waiting = again + unsent
            unsent = []
        }
        if !refusedInRun, !locksPerWrite, writes.count >= writeConcurrency, writeConcurrency < maxWriteConcurrency {
            writeConcurrency += 1
        }
        return results
    }

    /// Rounds of sending the same writes again within one pass.
    static let writeRounds = 6

    /// Whether a write's error is worth sending it again in this pass, and whether the server refused it for
    /// being busy (which lowers the concurrency).
    static func busy(_ error: CardDAVError) -> (refused: Bool, retryAfter: Duration?)? {
        switch error.kind {
        case .rateLimited(let retryAfter), .locked(let retryAfter): (true, retryAfter)
        case .rejected(status: 409): (true, nil)
        case .serverError, .network: (false, nil)
        default: nil
        }
    }

    private func request(for write: RemoteWrite) -> CardDAVClient.Write {
        switch write {
        case .create(let card):
            let url = CardDAVClient.itemURL(bookURL: bookURL, uid: card.uid ?? Card.makeUID())
            return .put(
                url: url, vcard: card.splittingNicknameLists().serializedText(), ifMatch: nil, ifNoneMatchAny: true)
        case .update(let href, let etag, let card):
            let url = DAVURL.resolve(encoded(href), against: bookURL)
            return .put(
                url: url, vcard: card.splittingNicknameLists().serializedText(), ifMatch: etag.isEmpty ? nil : etag,
                ifNoneMatchAny: false)
        case .delete(let href, let etag):
            return .delete(url: DAVURL.resolve(encoded(href), against: bookURL), ifMatch: etag.isEmpty ? nil : etag)
        }
    }

    private func result(_ outcome: Result<PutResult, CardDAVError>, of request: CardDAVClient.Write)
        -> Result<RemoteEntry?, RemoteError>
    {
        switch (outcome, request) {
        case (.success(let result), .put(let url, _, _, _)):
            return .success(written(result, url: url))
        case (.success, .delete):
            return .success(nil)
        case (.failure(let error), .delete) where error.kind == .notFound:
            return .success(nil)  // already gone
        case (.failure(let error), _):
            return .failure(RemoteError(itemWrite: error))
        }
    }

    /// Where a write went and its ETag, and what the server stored where that may differ from what was sent: a PUT
    /// answered without an ETag (RFC 6352 6.3.2.3: a server that changes a card as it stores it must not send one;
    /// SabreDAV-based servers never do), with a weak one, or on a server known to change cards
    /// (`readsBackWrites`). The card read back goes to the sync, which compares it with what was sent
    /// (`SyncSession`, the read-back). A read-back that fails leaves the ETag empty, so that the next run fetches
    /// the item and compares content.
    private func written(_ result: PutResult, url: String) -> RemoteEntry {
        let href = canonical(url)
        if let etag = result.etag, !etag.hasPrefix("W/"), !readsBackWrites {
            return RemoteEntry(href: href, etag: etag)
        }
        guard let (etag, text) = try? attempt({ try client.getBytes(url: url) }) else {
            return RemoteEntry(href: href, etag: result.etag ?? "")
        }
        var entry = RemoteEntry(href: href, etag: etag ?? result.etag ?? "")
        entry.readBack = text
        return entry
    }

    /// Runs a request with retries, turning CardDAV errors into the sync engine's.
    private func attempt<T>(_ body: () throws -> T) throws -> T {
        try retry.run {
            do {
                return try body()
            } catch let error as CardDAVError {
                throw RemoteError(error)
            }
        }
    }

    /// The store's spelling of an href the server sent, when it names an item of this book; nil, with one warning
    /// a run, for anything else (another user's book, `../` or `%2e%2e/` climbing out): nothing is ever read from
    /// or written to such a place.
    private func member(_ href: String) -> String? {
        if let path = members.path(href) { return path }
        if !warnedOutside, !DAVURL.sameResource(DAVURL.resolve(href, against: bookURL), bookURL) {
            warnedOutside = true
            logger.warning(
                "The server listed an item outside the address book; ignored (only the first such is logged)",
                metadata: ["carddav.href": "\(DAVURL.path(of: DAVURL.resolve(href, against: bookURL)))"])
        }
        return nil
    }

    private func canonical(_ href: String) -> String {
        DAVURL.percentDecodedPath(DAVURL.path(of: DAVURL.resolve(href, against: bookURL)))
    }

    private func encoded(_ href: String) -> String {
        DAVURL.encodedPath(href)
    }
}

extension RemoteError {
    /// A write's error: a 403 on one item is that item refused (Cyrus refuses a card without UID with 403), not
    /// the login, which the listing before it has proven.
    init(itemWrite error: CardDAVError) {
        if case .unauthorized = error.kind, error.message.contains(": 403") {
            self.init(.rejected(status: 403), error.message)
        } else {
            self.init(error)
        }
    }

    public init(_ error: CardDAVError) {
        switch error.kind {
        case .preconditionFailed: self.init(.preconditionFailed, error.message)
        case .rejected(let status): self.init(.rejected(status: status), error.message)
        case .unauthorized: self.init(.unauthorized, error.message)
        case .rateLimited(let retryAfter), .locked(let retryAfter):
            self.init(.unavailable(retryAfter: retryAfter), error.message)
        case .serverError: self.init(.unavailable(retryAfter: nil), error.message)
        case .notFound: self.init(.notFound, error.message)
        case .invalidSyncToken: self.init(.invalidSyncToken, error.message)
        case .malformedResponse: self.init(.malformed, error.message)
        case .network(let cause):
            switch cause.kind {
            case .refusedRedirect, .protocolError, .tooLarge: self.init(.malformed, error.message)
            case .timeout: self.init(.tooSlow, error.message)
            case .connect, .dns, .tls, .aborted, .other: self.init(.unreachable, error.message)
            }
        }
    }
}

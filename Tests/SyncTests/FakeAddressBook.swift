import Sync
import VCard

/// An in-memory remote for unit tests (the integration tests use Radicale and real folders). It keeps a change
/// log so it can answer with sync tokens like a CardDAV server, or list everything like a folder.
final class FakeAddressBook: AddressBook {
    let name: String
    var writeVersion = "3.0"
    let usesTokens: Bool
    private(set) var items: [String: (etag: String, text: String)] = [:]
    private var log: [(href: String, removed: Bool)] = []
    private var etagCounter = 0
    /// Requests by kind, for tests that count round trips.
    private(set) var calls: [String: Int] = [:]
    /// The items of each fetch and of each batch of writes, in order: the chunks the sync worked in.
    private(set) var fetchSizes: [Int] = []
    private(set) var writeBatches: [Int] = []
    /// Makes the next write to this href fail with this error once.
    var failNextWrite: [String: RemoteError] = [:]
    /// Runs just before the next write to this href: another client acting at the worst moment.
    var beforeNextWrite: [String: () -> Void] = [:]
    /// Makes every call fail, like a server that is down.
    var unavailable = false
    /// Refuses every write to this href with this error, like a server that will not take that card.
    var refuse: [String: RemoteError] = [:]
    /// Refuses cards without FN with 400, as servers that check vCard's mandatory properties do.
    var refusesCardsWithoutFN = false
    /// Brings the cards along in a first download's full listing (as `CardDAVAddressBook` does from Radicale), all
    /// of them (`Int.max`), or that many, then lists everything again without (a query cut short).
    var cardsWithListing: Int?
    /// Leaves out of the changes since a token the items created and deleted after it, as Xandikos does.
    let omitsCreatedThenDeleted: Bool
    /// Answers the changes since any token with every item as changed and no removal, as a server that forgot its
    /// tokens was seen doing (a stand-in for it: RFC 6578 asks such a server to refuse the token).
    var forgetsTokens = false
    /// Gives each listed item's size, as a CardDAV listing with `DAV:getcontentlength` does.
    var listsSizes = false

    init(name: String = "fake", usesTokens: Bool = true, omitsCreatedThenDeleted: Bool = false) {
        self.name = name
        self.usesTokens = usesTokens
        self.omitsCreatedThenDeleted = omitsCreatedThenDeleted
    }

    // MARK: What a person does on the remote side

    func put(_ text: String, at href: String) {
        etagCounter += 1
        items[href] = ("\"e\(etagCounter)\"", text)
        log.append((href, false))
    }

    func remove(_ href: String) {
        items[href] = nil
        log.append((href, true))
    }

    /// A deletion the change log missed: no change since a token names it, only a full listing shows it.
    func removeUntracked(_ href: String) {
        items[href] = nil
    }

    var cards: [String: Card] {
        items.compactMapValues { item in
            var reader = CardReader(text: item.text)
            return try? reader.next()?.get().card
        }
    }

    // MARK: AddressBook

    /// An item's listing entry, with its size where `listsSizes`.
    private func entry(_ href: String, _ item: (etag: String, text: String)) -> RemoteEntry {
        RemoteEntry(href: href, etag: item.etag, size: listsSizes ? item.text.utf8.count : nil)
    }

    /// The changes since `token`, or every item, without cards.
    private func listing(
        since token: String?, changed: (RemoteEntry) throws -> Void, removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        try check("changes")
        if usesTokens, token != nil, forgetsTokens {
            for (href, item) in items.sorted(by: { $0.key < $1.key }) {
                try changed(entry(href, item))
            }
            return ChangeFeed(newToken: String(log.count), isFullListing: false)
        }
        if usesTokens, let token, let start = Int(token), start <= log.count {
            var latest: [String: Bool] = [:]
            for entry in log[start...] { latest[entry.href] = entry.removed }
            let existedAtToken = Dictionary(log[..<start].map { ($0.href, !$0.removed) }) { _, later in later }
            for (href, wasRemoved) in latest.sorted(by: { $0.key < $1.key }) {
                if omitsCreatedThenDeleted, items[href] == nil, existedAtToken[href] != true { continue }
                if wasRemoved || items[href] == nil {
                    try removed(href)
                } else if let item = items[href] {
                    try changed(entry(href, item))
                }
            }
            return ChangeFeed(newToken: String(log.count), isFullListing: false)
        }
        for (href, item) in items.sorted(by: { $0.key < $1.key }) {
            try changed(entry(href, item))
        }
        return ChangeFeed(newToken: usesTokens ? String(log.count) : nil, isFullListing: true)
    }

    func changes(
        since token: String?, withCards: Bool, changed: (RemoteEntry) throws -> Void,
        removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        guard withCards, let count = cardsWithListing, token == nil else {
            return try listing(since: token, changed: changed, removed: removed)
        }
        try check("changes with cards")
        for (href, item) in items.sorted(by: { $0.key < $1.key }).prefix(count) {
            try changed(RemoteEntry(href: href, etag: item.etag, card: Array(item.text.utf8)))
        }
        guard count < items.count else { return ChangeFeed(newToken: String(log.count), isFullListing: true) }
        return try listing(since: nil, changed: changed, removed: removed)
    }

    func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws {
        try check("fetch")
        precondition(hrefs.count <= 100, "fetch batches are at most 100")
        fetchSizes.append(hrefs.count)
        for href in hrefs {
            guard let item = items[href] else { continue }
            try body(.success(RemoteCard(reading: item.text, href: href, etag: item.etag)))
        }
    }

    func perform(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>] {
        writeBatches.append(writes.count)
        return performOneByOne(writes)
    }

    func hrefForNew(_ card: Card) -> String {
        Card.fileName(forUID: card.uid ?? "")
    }

    func create(_ card: Card) throws -> RemoteEntry {
        try check("create")
        let href = Card.fileName(forUID: card.uid ?? "")
        try injectedFailure(href)
        if refusesCardsWithoutFN, card.formattedName == nil {
            throw RemoteError(.rejected(status: 400), "PUT \(href): 400 Bad Request (FN is required)")
        }
        guard items[href] == nil else { throw RemoteError(.preconditionFailed, "\(href) exists") }
        put(card.serialized(), at: href)
        return RemoteEntry(href: href, etag: items[href]?.etag ?? "")
    }

    func update(href: String, etag: String, with card: Card) throws -> String {
        try check("update")
        try injectedFailure(href)
        guard let item = items[href], item.etag == etag else {
            throw RemoteError(.preconditionFailed, "\(href) changed")
        }
        put(card.serialized(), at: href)
        return items[href]?.etag ?? ""
    }

    func delete(href: String, etag: String) throws {
        try check("delete")
        try injectedFailure(href)
        guard let item = items[href] else { return }
        guard item.etag == etag else { throw RemoteError(.preconditionFailed, "\(href) changed") }
        remove(href)
    }

    private func check(_ call: String) throws {
        calls[call, default: 0] += 1
        if unavailable { throw RemoteError(.unavailable(retryAfter: nil), "\(name) is down") }
    }

    private func injectedFailure(_ href: String) throws {
        beforeNextWrite.removeValue(forKey: href)?()
        if let error = refuse[href] { throw error }
        if let error = failNextWrite.removeValue(forKey: href) { throw error }
    }
}

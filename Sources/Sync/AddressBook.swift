import VCard

/// Where one item of a remote address book is, and which version of it: the ETag for CardDAV, a stamp made of
/// mtime, size and inode for a vCard folder. ETags are opaque and compared exactly as received.
public struct RemoteEntry: Sendable, Equatable {
    public var href: String
    public var etag: String
    /// The item's card (UTF-8), where a listing brought it along (`AddressBook.changes(since:withCards:...)`): only
    /// a small one (`CardText.spoolThreshold`); a large one is fetched later, a page bounded by bytes at a time.
    public var card: [UInt8]?
    /// The item's size in bytes, where the listing said (`DAV:getcontentlength`): fetches are paged by it.
    public var size: Int?
    /// What the remote stored, where a write read it back (`CardDAVAddressBook.written`): spooled where it is large.
    public var readBack: CardText?

    public init(href: String, etag: String, card: [UInt8]? = nil, size: Int? = nil) {
        self.href = href
        self.etag = etag
        self.card = card
        self.size = size ?? card?.count
    }

    public static func == (a: RemoteEntry, b: RemoteEntry) -> Bool {
        a.href == b.href && a.etag == b.etag && a.card == b.card && a.size == b.size
            && (a.readBack == nil) == (b.readBack == nil)
    }
}

/// One fetched item, always with a UID, and with its content hash worked out once (hashing was a quarter of a
/// download's CPU time when every step computed it again).
public struct RemoteCard: Sendable {
    public let href: String
    public let etag: String
    public let card: Card
    public let hash: String

    /// A card without UID gets one derived from its href, the same on every fetch: a random one would make it a
    /// new contact on every run.
    public init(href: String, etag: String, card: Card) {
        var card = card
        if (card.uid ?? "").isEmpty { card.setUID(Card.stableUID(forLocation: href)) }
        self.href = href
        self.etag = etag
        self.card = card
        self.hash = card.contentHash
    }

    /// A card as read; the UID the reader made up for a card without one is replaced by the stable one.
    public init(href: String, etag: String, parsed: ParsedCard) {
        var card = parsed.card
        if parsed.repairs.contains(where: { $0.hasPrefix("added UID") }) {
            card.setUID(Card.stableUID(forLocation: href))
        }
        self.init(href: href, etag: etag, card: card)
        notes = parsed.warnings
    }

    /// What the run reports about how this card was read (a UID repaired, data that is not valid base64, bytes
    /// that were not UTF-8), without the href, which the report adds.
    public var notes: [String] = []

    public var uid: String { card.uid ?? "" }

    /// Why the card was carried opaque, for the run's notes; nil for a card read.
    public private(set) var unreadable: String?

    /// An item no reader understands: kept as it is, its identity from its UID line, else from its href.
    public init(opaque text: String, href: String, etag: String, why: String) {
        let uid = Card.uidLine(in: text) ?? Card.stableUID(forLocation: href)
        self.init(href: href, etag: etag, card: Card(opaque: text, uid: uid))
        unreadable = why
    }

    /// The same item under another identity: a second card with a UID already taken on the remote.
    func withUID(_ uid: String) -> RemoteCard {
        var card = card
        card.setUID(uid)
        return RemoteCard(href: href, etag: etag, card: card)
    }

    /// The identity of a second card with `uid` at `href`: the same on every run.
    static func duplicateUID(_ uid: String, href: String) -> String {
        Card.stableUID(forLocation: uid + "\n" + href)
    }
}

/// What changed in a remote since a sync token, streamed to the caller in bounded memory.
public struct ChangeFeed {
    /// The token to store once every change before it is applied; nil when the book has no tokens.
    public var newToken: String?
    /// True when the feed listed every item (a full listing, not a delta): items not listed are gone.
    public var isFullListing: Bool
    /// Items the listing named but could not be used (an href that is not UTF-8), one message each, naming it.
    /// None of them is an item this store has seen, so leaving them out of a full listing deletes nothing.
    public var skipped: [String] = []

    public init(newToken: String?, isFullListing: Bool, skipped: [String] = []) {
        self.newToken = newToken
        self.isFullListing = isFullListing
        self.skipped = skipped
    }
}

/// A remote address book: a CardDAV collection or a folder of one `.vcf` per contact (vdir).
///
/// Implementations are synchronous (the sync worker runs on its own thread) and stream every listing.
public protocol AddressBook: AnyObject {
    /// The remote's configured name, for logs and errors.
    var name: String { get }

    /// The vCard version to write: "4.0" only where the remote says it supports it, else "3.0".
    var writeVersion: String { get }

    /// Changes since `token` (nil: everything). `changed` gets new or modified entries, `removed` the hrefs of
    /// deleted ones. A book without tokens, or one whose token is no longer valid, lists every entry instead and
    /// says so with `isFullListing`; it then never calls `removed`. `withCards` (a first download) lets a full
    /// listing bring the cards along in its entries (`RemoteEntry.card`), where the remote sends them so more
    /// cheaply than they are fetched afterwards (`CardDAVAddressBook`: Radicale); an entry without its card is
    /// fetched as usual.
    func changes(
        since token: String?, withCards: Bool, changed: (RemoteEntry) throws -> Void,
        removed: (String) throws -> Void
    ) throws -> ChangeFeed

    /// Fetches up to 100 items. Calls `body` once per href that still exists, with the card or the error that
    /// item alone has (unparsable card: `RemoteError.Kind.rejected`); items deleted meanwhile are left out.
    func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws

    /// Fetches page after page of up to 100 items: `next` gives each page's hrefs (nil at the end), and `body`
    /// gets each page's hrefs and results, in order, as `fetch` gives them. A remote may have the next page's
    /// request in flight while `body` handles the last one (at most one page ahead, so memory stays flat).
    /// `AddressBook.swift` has a default, one `fetch` after the other.
    func fetchPages(
        _ next: () throws -> [String]?, _ body: ([String], [Result<RemoteCard, RemoteError>]) throws -> Void
    ) throws

    /// Where `create` puts this card: the href a 412 on create refers to.
    func hrefForNew(_ card: Card) -> String

    /// Creates an item for a contact that the remote does not have yet; fails with `.preconditionFailed` if
    /// something already exists there. Returns where it went; the ETag is "" when the remote did not say.
    func create(_ card: Card) throws -> RemoteEntry

    /// Replaces the item at `href` if it is still at version `etag`; `.preconditionFailed` otherwise. Returns the
    /// new ETag, "" when the remote did not say.
    func update(href: String, etag: String, with card: Card) throws -> String

    /// Deletes the item at `href` if it is still at version `etag`; `.preconditionFailed` otherwise. Deleting an
    /// item that is already gone succeeds.
    func delete(href: String, etag: String) throws

    /// Carries out independent writes, concurrently where the remote can, and returns one result per write in
    /// order: the entry written (nil for a delete) or that write's error. `RemoteWrite.swift` has a default.
    func perform(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>]

    /// How many writes at once the remote took in this run, to start from next time; nil where writes do not
    /// adapt. `RemoteWrite.swift` has a default.
    var learnedWriteConcurrency: Int? { get }
}

/// A remote that reads back what it stored after a write (`RemoteEntry.readBack`) where its answer allows it to have
/// changed the card (`CardDAVAddressBook`): the engine compares that with what it sent (`SyncSession+ReadBack.swift`).
public protocol ReadsBackWrites: AddressBook {
    /// Every write is read back, not only one whose answer allows a change: the remote was seen to change what it was
    /// sent. Set by the engine, for the rest of the run.
    var readsBackWrites: Bool { get set }
}

extension AddressBook {
    /// The changes since `token`, without cards.
    public func changes(
        since token: String?, changed: (RemoteEntry) throws -> Void, removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        try changes(since: token, withCards: false, changed: changed, removed: removed)
    }

    public func fetchPages(
        _ next: () throws -> [String]?, _ body: ([String], [Result<RemoteCard, RemoteError>]) throws -> Void
    ) throws {
        while let hrefs = try next() {
            var results: [Result<RemoteCard, RemoteError>] = []
            try fetch(hrefs) { results.append($0) }
            try body(hrefs, results)
        }
    }
}

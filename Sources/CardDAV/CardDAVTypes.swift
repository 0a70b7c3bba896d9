import VCard

/// An address book found by discovery.
public struct AddressBookInfo: Sendable, Equatable {
    /// Absolute URL of the collection.
    public var url: String
    public var displayName: String?
    /// From `DAV:supported-report-set`; true when the server does not say (then a failed sync-collection falls
    /// back to a listing).
    public var supportsSyncCollection: Bool
    /// vCard versions from `CARDDAV:supported-address-data`: ["3.0"] when the server does not say.
    public var supportedVersions: [String]

    public init(
        url: String, displayName: String? = nil, supportsSyncCollection: Bool = true,
        supportedVersions: [String] = ["3.0"]
    ) {
        self.url = url
        self.displayName = displayName
        self.supportsSyncCollection = supportsSyncCollection
        self.supportedVersions = supportedVersions
    }
}

/// One change reported by a sync-collection report (RFC 6578).
public enum SyncChange: Sendable, Hashable {
    /// A member that is new or changed, with its ETag ("" when the server left it out, or sent one that cannot
    /// be sent back: see `DAVETag`) and its size in bytes where the server gave it (`DAV:getcontentlength`).
    case changed(href: String, etag: String, size: Int? = nil)
    /// A member that was removed (a response with status 404). Radicale also reports long-gone items this way on
    /// a first sync: callers ignore hrefs they never saw.
    case removed(href: String)
    /// A member that cannot be named: its href held bytes that are not UTF-8 (shown here as U+FFFD). It can be
    /// neither fetched nor written; `why` says so.
    case unusable(href: String, why: String)
}

/// ETags go back to the server exactly as received, in `If-Match`. One with a control character cannot: CR LF
/// would end the header and start another (header injection), and HTTP allows none (RFC 9110 8.8.3).
public enum DAVETag {
    /// Why `etag` cannot be used, or nil when it can.
    public static func problem(_ etag: String) -> String? {
        var etag = etag
        let controls = etag.withUTF8 { $0.contains { $0 < 0x20 || $0 == 0x7F } }
        return controls ? "its ETag holds control characters (CR, LF ...)" : nil
    }
}

/// The end of a sync-collection, after every truncated round was followed.
public struct SyncCollectionResult: Sendable, Equatable {
    /// The token to store once every change is applied.
    public var token: String
    /// REPORT requests it took (more than one when the server truncated the result).
    public var requests: Int
    public var changed: Int
    public var removed: Int

    public init(token: String, requests: Int, changed: Int, removed: Int) {
        self.token = token
        self.requests = requests
        self.changed = changed
        self.removed = removed
    }
}

/// One item of an addressbook-multiget.
public struct MultigetItem: Sendable {
    public enum Outcome: Sendable {
        /// The vCard's text (UTF-8), as the server sent it; spooled where it is large.
        case card(CardText)
        /// The server says the item does not exist (404): deleted since it was listed.
        case missing
        /// This one item could not be read (e.g. a card over `CardReader.Limits.maxCardBytes`); the others are
        /// unaffected.
        case failed(CardDAVError)
        /// The card's bytes were not UTF-8 and were changed to read the multistatus: not the server's card. Fetch
        /// it alone (`getBytes`) to have its bytes as they are.
        case damaged(String)
    }

    /// The href exactly as the server sent it.
    public var href: String
    public var etag: String?
    /// The item's status (its propstat's, or the response's): 200, 404 ...
    public var status: Int
    public var outcome: Outcome

    public init(href: String, etag: String?, status: Int, outcome: Outcome) {
        self.href = href
        self.etag = etag
        self.status = status
        self.outcome = outcome
    }

    public var vcard: String? {
        if case .card(let text) = outcome { text.string } else { nil }
    }

    public var isMissing: Bool {
        if case .missing = outcome { true } else { false }
    }
}

/// The answer to a PUT.
public struct PutResult: Sendable, Equatable {
    public var status: Int
    /// The new ETag exactly as sent, or nil when the server did not send one (SabreDAV may not): fetch it.
    public var etag: String?

    public init(status: Int, etag: String?) {
        self.status = status
        self.etag = etag
    }
}

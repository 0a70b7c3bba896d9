/// A cloud address book or a vdir folder that the store syncs with.
public struct Remote: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case carddav
        case vdir
    }

    public var id: Int64
    /// Unique, chosen by the person configuring the box ("icloud", "nas").
    public var name: String
    public var kind: Kind
    /// The address book URL, or the folder path for a vdir.
    public var url: String
    /// The RFC 6578 sync token of the last successful sync, if the server has them.
    public var syncToken: String?
    /// Unix milliseconds.
    public var createdAt: Int64
    /// Local changes up to this change sequence number have reached this remote.
    public var syncedSeq: Int64
    /// The address book discovery found at `url` (CardDAV), and what it supports ("sync", "4.0").
    public var bookURL: String?
    public var capabilities: [String]
    /// Writes at once that the remote last took without refusing; nil until learned.
    public var writeConcurrency: Int?
    /// The form in which the remote keeps what it is sent intact, learned from a damaged write (`"rev"`: with a
    /// `REV`; `"3.0"`: in vCard 3.0); empty until a server damages a card.
    public var writeForm: Set<String>

    public init(
        id: Int64, name: String, kind: Kind, url: String, syncToken: String?, createdAt: Int64, syncedSeq: Int64 = 0,
        bookURL: String? = nil, capabilities: [String] = [], writeConcurrency: Int? = nil, writeForm: Set<String> = []
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.url = url
        self.syncToken = syncToken
        self.createdAt = createdAt
        self.syncedSeq = syncedSeq
        self.bookURL = bookURL
        self.capabilities = capabilities
        self.writeConcurrency = writeConcurrency
        self.writeForm = writeForm
    }
}

/// What one item looked like on both sides after the last successful sync with one remote: the base of the
/// three-way comparison.
public struct RemoteItemState: Sendable, Equatable {
    public var remoteID: Int64
    public var uid: String
    /// Where the item lives on the remote (the CardDAV href or the vdir file name); unique per remote.
    public var href: String
    /// The remote's ETag (or the file's modification stamp); nil when the server did not send one.
    public var etag: String?
    /// The content hash both sides agreed on.
    public var hash: String

    public init(remoteID: Int64, uid: String, href: String, etag: String?, hash: String) {
        self.remoteID = remoteID
        self.uid = uid
        self.href = href
        self.etag = etag
        self.hash = hash
    }
}

/// The household's contacts as the page (`/contacts`) and the JSON API (`/api/contacts`, `/api/changes`) show them.
///
/// The daemon gives the status server one backend, over the store; the server calls it on MHD's one thread only, one
/// request at a time, so an implementation may hold a SQLite connection of its own without a lock. Every call reads
/// at most one chunk (100 contacts, or one contact's versions) and answers in milliseconds: it must never wait for a
/// sync. What the server renders comes from these values alone; every string in them is a card's text or a server's,
/// hostile until escaped.
public protocol ContactsBackend: AnyObject, Sendable {
    /// Live contacts in name order after `cursor` (nil: from the start), at most `limit` (1 to 100). `search` keeps
    /// the contacts whose name, organisation or email contains it (ignoring case), or, when it is a phone number,
    /// whose phone numbers contain its digits (ignoring spaces, dashes, dots, brackets and `+`).
    func list(search: String?, after cursor: String?, limit: Int) throws(ContactsError) -> ContactsPage

    /// One contact, live or deleted (a tombstone within the history's age: `deleted` then); nil when the store has
    /// never held the UID.
    func contact(uid: String) throws(ContactsError) -> ContactDetail?

    /// The versions of one contact, newest first, before the history row `before` (nil: from the newest).
    func versions(uid: String, before: Int64?, limit: Int) throws(ContactsError) -> VersionsPage

    /// The contacts deleted within the history's age, newest first, after `cursor`.
    func trash(after cursor: String?, limit: Int) throws(ContactsError) -> TrashPage

    /// Every contact changed after `seq`, tombstones included, in change order (CouchDB's `_changes`).
    func changes(since seq: Int64, limit: Int) throws(ContactsError) -> ChangesPage

    /// The store's last change sequence number: a long poll waits until it passes the one asked for.
    func lastChange() throws(ContactsError) -> Int64

    /// The contact's photo as an image a browser may show (JPEG, PNG, GIF or WebP, recognised by its bytes, never by
    /// what the card claims); nil when it has none, or none of those.
    func photo(uid: String) throws(ContactsError) -> ContactPhoto?

    /// One contact's vCard (`uid`), or every live contact's (nil), as the store holds them or as they were at
    /// `asOf` (unix milliseconds), read a chunk at a time.
    func export(uid: String?, asOf: Int64?) throws(ContactsError) -> any VCardExport

    /// What restoring version `historyID` would change on the contact (before, after), without changing it.
    func previewRestore(uid: String, historyID: Int64) throws(ContactsError) -> [FieldChange]

    /// Changes the store: each write is a run of its own (with history, so it can be undone), carried to the
    /// remotes by the next sync.
    func write(_ write: ContactWrite) throws(ContactsError) -> WriteOutcome
}

/// A refusal or failure, as the API answers it: its HTTP status and a message for people (never a password).
public struct ContactsError: Error, Sendable, Equatable {
    /// 400 (a card that cannot be read), 404, 409 (the body's UID is another), 412 (`If-Match` is stale), 428
    /// (`If-Match` is needed), 500 (the store failed), 503 (the store is busy).
    public var status: Int
    public var message: String

    public init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// One contact in a list.
public struct ContactSummary: Sendable, Equatable {
    public var uid: String
    /// Its display name as the store keeps it; empty when the card has none.
    public var name: String
    /// Its first phone number and email, as written in the card.
    public var phone: String?
    public var email: String?
    /// One or two letters for the round badge where there is no photo.
    public var initials: String
    public var hasPhoto: Bool
    /// The store's hash of the card: the `ETag` of the contact and what `If-Match` names.
    public var hash: String
    public var changeSeq: Int64
    /// Unix milliseconds.
    public var changedAt: Int64

    public init(
        uid: String, name: String, phone: String? = nil, email: String? = nil, initials: String,
        hasPhoto: Bool = false, hash: String, changeSeq: Int64, changedAt: Int64
    ) {
        self.uid = uid
        self.name = name
        self.phone = phone
        self.email = email
        self.initials = initials
        self.hasPhoto = hasPhoto
        self.hash = hash
        self.changeSeq = changeSeq
        self.changedAt = changedAt
    }
}

/// A page of contacts; `next` goes into `after` for the next one, nil at the end.
public struct ContactsPage: Sendable, Equatable {
    public var contacts: [ContactSummary]
    public var next: String?

    public init(contacts: [ContactSummary], next: String?) {
        self.contacts = contacts
        self.next = next
    }
}

/// One property of a card, as it is: every parameter and its values.
public struct ContactProperty: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var values: [String]

        public init(name: String, values: [String]) {
            self.name = name
            self.values = values
        }
    }

    public var group: String?
    /// As the card spells it, in upper case (`TEL`, `X-ABLABEL`).
    public var name: String
    public var parameters: [Parameter]
    /// The value, unescaped where its type is text. Embedded binary data (a photo, a logo, a sound) is not repeated
    /// here: empty, with `dataBytes` its size.
    public var value: String
    /// The components of a structured value (`N`, `ADR`, `ORG`, `GENDER`), unescaped; nil for others.
    public var components: [String]?
    /// The size of embedded binary data, when the value was that.
    public var dataBytes: Int?

    public init(
        group: String? = nil, name: String, parameters: [Parameter] = [], value: String, components: [String]? = nil,
        dataBytes: Int? = nil
    ) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.value = value
        self.components = components
        self.dataBytes = dataBytes
    }
}

/// A field as a person knows it, in the order a contact's page shows them.
public struct ContactField: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case name, nickname, phone, email, address, birthday, anniversary, organisation, title, role, note
        case categories, group, url, social, related, gender, language, timezone, geo
    }

    public var kind: Kind
    /// Its kinds in words ("mobile", "home, voice", an `X-ABLABEL`), nil when the card gives none.
    public var label: String?
    /// The value in words: an address's lines joined by ", ", a date as the card gives it (`--0412` is "12 April").
    public var value: String

    public init(kind: Kind, label: String? = nil, value: String) {
        self.kind = kind
        self.label = label
        self.value = value
    }
}

/// One contact, whole.
public struct ContactDetail: Sendable, Equatable {
    public var summary: ContactSummary
    public var deleted: Bool
    /// What the page shows in words.
    public var fields: [ContactField]
    /// The properties the page has no words for, listed as they are.
    public var unknown: [ContactProperty]
    /// Every property of the card, for the JSON.
    public var properties: [ContactProperty]
    /// The names of the remotes that hold it (from their last sync).
    public var remotes: [String]

    public init(
        summary: ContactSummary, deleted: Bool = false, fields: [ContactField], unknown: [ContactProperty],
        properties: [ContactProperty], remotes: [String]
    ) {
        self.summary = summary
        self.deleted = deleted
        self.fields = fields
        self.unknown = unknown
        self.properties = properties
        self.remotes = remotes
    }
}

/// A field that differs between two versions of a contact; nil where a side does not have it.
public struct FieldChange: Sendable, Equatable {
    /// In words: "Phone (mobile)", "Name", or a property's name.
    public var field: String
    public var before: String?
    public var after: String?

    public init(field: String, before: String?, after: String?) {
        self.field = field
        self.before = before
        self.after = after
    }
}

/// A change to one contact, as its history records it.
public struct ContactVersion: Sendable, Equatable {
    /// The history row: what `before`, `previewRestore` and `restore` name.
    public var id: Int64
    /// Unix milliseconds.
    public var recordedAt: Int64
    /// `created`, `updated`, `deleted`, or `archived` (a version that never was the contact: a conflict's loser).
    public var kind: String
    /// What changed it, in words: "sync with icloud", "import", "the command line (edit)", "undo of run 12".
    public var cause: String
    public var runID: Int64?
    /// The fields this change changed: before it, and after it.
    public var changes: [FieldChange]
    /// Whether the version before this change can be put back (a `created` row has none).
    public var canRestore: Bool
    /// Dated by the box's clock before it was set, and never put right: the time is unsure.
    public var timeUnsure: Bool

    public init(
        id: Int64, recordedAt: Int64, kind: String, cause: String, runID: Int64?, changes: [FieldChange],
        canRestore: Bool, timeUnsure: Bool = false
    ) {
        self.timeUnsure = timeUnsure
        self.id = id
        self.recordedAt = recordedAt
        self.kind = kind
        self.cause = cause
        self.runID = runID
        self.changes = changes
        self.canRestore = canRestore
    }
}

public struct VersionsPage: Sendable, Equatable {
    public var versions: [ContactVersion]
    /// Goes into `before` for older versions; nil at the oldest.
    public var next: Int64?

    public init(versions: [ContactVersion], next: Int64?) {
        self.versions = versions
        self.next = next
    }
}

/// A contact in the trash.
public struct TrashedContact: Sendable, Equatable {
    public var uid: String
    public var name: String
    /// Unix milliseconds.
    public var deletedAt: Int64
    /// What deleted it, in words (as `ContactVersion.cause`).
    public var cause: String
    /// The history row of the deletion: restoring it brings back the version it deleted.
    public var historyID: Int64

    public init(uid: String, name: String, deletedAt: Int64, cause: String, historyID: Int64) {
        self.uid = uid
        self.name = name
        self.deletedAt = deletedAt
        self.cause = cause
        self.historyID = historyID
    }
}

public struct TrashPage: Sendable, Equatable {
    public var contacts: [TrashedContact]
    public var next: String?

    public init(contacts: [TrashedContact], next: String?) {
        self.contacts = contacts
        self.next = next
    }
}

/// One row of the changes feed.
public struct ContactChange: Sendable, Equatable {
    public var seq: Int64
    public var uid: String
    public var deleted: Bool
    public var hash: String

    public init(seq: Int64, uid: String, deleted: Bool, hash: String) {
        self.seq = seq
        self.uid = uid
        self.deleted = deleted
        self.hash = hash
    }
}

public struct ChangesPage: Sendable, Equatable {
    public var results: [ContactChange]
    /// The last row's `seq`, or the `since` asked for when there is none.
    public var lastSeq: Int64

    public init(results: [ContactChange], lastSeq: Int64) {
        self.results = results
        self.lastSeq = lastSeq
    }
}

public struct ContactPhoto: Sendable, Equatable {
    /// `image/jpeg`, `image/png`, `image/gif` or `image/webp`.
    public var mediaType: String
    public var bytes: [UInt8]

    public init(mediaType: String, bytes: [UInt8]) {
        self.mediaType = mediaType
        self.bytes = bytes
    }
}

/// vCards read a chunk at a time, for a download that streams: MHD asks for more as the client takes it.
public protocol VCardExport: AnyObject {
    /// The next chunk of vCard text (one or more whole cards, CRLF line ends), nil at the end.
    func next() throws(ContactsError) -> [UInt8]?
}

/// Who asked for a write, for the run's note and the log: "the page", "API token NAME".
public typealias ContactWriter = String

public enum ContactWrite: Sendable, Equatable {
    /// Creates or replaces the contact `uid` with the card in `vcard` (its UID must be `uid`, or it has none and
    /// gets `uid`). `ifMatch`: the hash the writer last saw; needed when the contact exists.
    case put(uid: String, vcard: [UInt8], ifMatch: String?, by: ContactWriter)
    /// Deletes a live contact (its version stays in the history and the trash).
    case delete(uid: String, ifMatch: String?, by: ContactWriter)
    /// Puts back the version before the change `historyID` (of `uid`): from a contact's page, or the trash.
    case restore(uid: String, historyID: Int64, by: ContactWriter)
}

public struct WriteOutcome: Sendable, Equatable {
    /// The run that made the change (undo takes it).
    public var runID: Int64
    /// The contact after it: nil when deleted.
    public var contact: ContactSummary?
    /// Whether the UID was new to the store (`201 Created`).
    public var created: Bool

    public init(runID: Int64, contact: ContactSummary?, created: Bool) {
        self.runID = runID
        self.contact = contact
        self.created = created
    }
}

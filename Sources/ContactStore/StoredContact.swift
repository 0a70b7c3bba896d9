import VCard

/// A contact as the store keeps it: the current version of one UID, or its tombstone once deleted.
public struct StoredContact: Sendable, Equatable {
    /// The row id: stable for the life of the UID (a revived tombstone keeps it), and the tie-breaker of paging.
    public var id: Int64
    public var uid: String
    /// The whole vCard as serialised by the VCard module: in a spool file where it is large.
    public var text: CardText {
        get { comparedText.text }
        set { comparedText.text = newValue }
    }
    private var comparedText: ComparedText
    /// The text as a String, for a person's eyes (show, edit, export): a large one is read whole.
    public var vcard: String { text.string }
    /// The normalised content hash (`Card.contentHash`), used to detect change and exact duplicates.
    public var hash: String
    public var displayName: String
    /// Unix milliseconds.
    public var createdAt: Int64
    /// Unix milliseconds of the last insert, update, delete or revival.
    public var changedAt: Int64
    /// The local change sequence number of the last change; strictly increasing across the whole store.
    public var changeSeq: Int64
    /// A tombstone: the UID was deleted. The row stays so that the deletion can be synced.
    public var deleted: Bool

    public init(
        id: Int64, uid: String, text: CardText, hash: String, displayName: String, createdAt: Int64,
        changedAt: Int64, changeSeq: Int64, deleted: Bool
    ) {
        self.id = id
        self.uid = uid
        self.comparedText = ComparedText(text: text)
        self.hash = hash
        self.displayName = displayName
        self.createdAt = createdAt
        self.changedAt = changedAt
        self.changeSeq = changeSeq
        self.deleted = deleted
    }

    /// Where the text is kept when it is large (`ContactStore+Texts.swift`): a writer copies and compares it there.
    var largeText: TextPlace?

    /// Where the next page starts when this contact is the last of the current one.
    public var cursor: ContactCursor { ContactCursor(displayName: displayName, id: id) }
}

/// A position in the contact list, which is ordered by display name (case-insensitive) and then row id.
public struct ContactCursor: Sendable, Hashable {
    public var displayName: String
    public var id: Int64

    public init(displayName: String, id: Int64) {
        self.displayName = displayName
        self.id = id
    }
}

/// A live contact as a list shows it (`ContactStore.contactLines`): read from the name index, without its card.
public struct ContactLine: Sendable, Equatable {
    public var id: Int64
    public var uid: String
    public var displayName: String
    public var hash: String
    public var changeSeq: Int64
    /// Unix milliseconds.
    public var changedAt: Int64
    /// Its phone, email and photo; nil while the fill-in of an older store has not reached it (read the card).
    public var line: ListLine?

    public var cursor: ContactCursor { ContactCursor(displayName: displayName, id: id) }
}

/// One row of a contact's history: a version that was overwritten or deleted, the note that a contact was created
/// (or revived), or a version kept aside (a conflict's loser).
public struct HistoryEntry: Sendable, Equatable {
    public var id: Int64
    public var uid: String
    /// The version before the change; empty for `created`. In a spool file where it is large.
    public var text: CardText {
        get { comparedText.text }
        set { comparedText.text = newValue }
    }
    private var comparedText: ComparedText
    /// The text as a String, for a person's eyes (history, restore): a large one is read whole.
    public var vcard: String { text.string }
    /// Where the text is kept when it is large.
    var largeText: TextPlace?
    public var hash: String
    /// Why the version was replaced: `replaced by <remote>`, `deleted on <remote>`, `conflict-lost:<remote>`,
    /// `deleted on the command line`, `undo of run 12` ...
    public var reason: String
    /// Unix milliseconds.
    public var recordedAt: Int64
    /// The remote involved, if any; NULL once that remote is removed.
    public var remoteID: Int64?
    public var kind: HistoryKind
    /// The sync run or local operation that made the change (nil for rows older than schema 4).
    public var runID: Int64?

    public init(
        id: Int64, uid: String, text: CardText, hash: String, reason: String, recordedAt: Int64, remoteID: Int64?,
        kind: HistoryKind = .updated, runID: Int64? = nil
    ) {
        self.id = id
        self.uid = uid
        self.comparedText = ComparedText(text: text)
        self.hash = hash
        self.reason = reason
        self.recordedAt = recordedAt
        self.remoteID = remoteID
        self.kind = kind
        self.runID = runID
    }

    /// The state the contact had just before this change; nil for an archived row, which changed nothing.
    public var stateBefore: ContactState? {
        switch kind {
        case .created: return .absent
        case .updated, .deleted: return .live(text: text, hash: hash)
        case .archived: return nil
        }
    }
}

/// What `importChunk` did with one card, in the order of the chunk.
public enum ImportOutcome: Sendable, Equatable {
    /// Stored under this UID (new, revived from a tombstone, or given a fresh UID because it had none).
    case inserted(String)
    /// Identical content is already stored under `existingUID`; nothing was written.
    case merged(existingUID: String)
    /// Its UID belonged to a different live contact: both are kept, the newcomer under a fresh UID.
    case renamed(from: String, to: String)
    /// Imported with `updating`: it replaced the live contact with its UID, whose old version went to history.
    case updated(String)
}

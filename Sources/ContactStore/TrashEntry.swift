/// A contact in the trash (`ContactStore.trash`): a tombstone whose deletion is still in the history.
public struct TrashEntry: Sendable, Equatable {
    /// The tombstone's row id: the tie-breaker of paging.
    public var contactID: Int64
    public var uid: String
    /// The name of the version deleted (a tombstone keeps it).
    public var displayName: String
    /// Unix milliseconds: when it was deleted (the tombstone's `changedAt`, the time of its `deleted` history row).
    public var deletedAt: Int64
    /// The deletion's history row, which holds the version deleted: `restore` of its `stateBefore` brings it back.
    public var historyID: Int64
    public var cause: ChangeCause

    public init(
        contactID: Int64, uid: String, displayName: String, deletedAt: Int64, historyID: Int64, cause: ChangeCause
    ) {
        self.contactID = contactID
        self.uid = uid
        self.displayName = displayName
        self.deletedAt = deletedAt
        self.historyID = historyID
        self.cause = cause
    }

    /// Where the next page starts when this entry is the last of the current one.
    public var cursor: TrashCursor { TrashCursor(deletedAt: deletedAt, contactID: contactID) }
}

/// A position in the trash, which is ordered by deletion time and then row id, newest first.
public struct TrashCursor: Sendable, Hashable {
    public var deletedAt: Int64
    public var contactID: Int64

    public init(deletedAt: Int64, contactID: Int64) {
        self.deletedAt = deletedAt
        self.contactID = contactID
    }
}

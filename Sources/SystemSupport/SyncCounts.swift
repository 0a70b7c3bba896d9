/// What a sync run did with one remote, the six counts: counted by the engine, kept by the sync journal, shown by
/// `contactbox sync` and `runs`, the status page, `/api/status` and `/metrics`. Declared here, below both the store
/// and the status server, so that there is one type for them: the status server imports nothing of the store.
public struct SyncCounts: Sendable, Equatable {
    public var uploaded = 0
    public var downloaded = 0
    public var updated = 0
    public var deleted = 0
    public var conflicts = 0
    public var errors = 0
    /// `updated` and `deleted` by side, for the summaries that say where a change was made: the store's contacts
    /// changed or deleted from the remote, or the remote's cards from the store. Each adds to its total; the journal
    /// keeps only the totals, so a run read back from it has these at 0.
    public var storeUpdated = 0 { didSet { updated += storeUpdated - oldValue } }
    public var storeDeleted = 0 { didSet { deleted += storeDeleted - oldValue } }
    public var serverUpdated = 0 { didSet { updated += serverUpdated - oldValue } }
    public var serverDeleted = 0 { didSet { deleted += serverDeleted - oldValue } }

    public init(
        uploaded: Int = 0, downloaded: Int = 0, updated: Int = 0, deleted: Int = 0, conflicts: Int = 0, errors: Int = 0
    ) {
        self.uploaded = uploaded
        self.downloaded = downloaded
        self.updated = updated
        self.deleted = deleted
        self.conflicts = conflicts
        self.errors = errors
    }

    /// Each count of `first` and `second` added (an initializer sets the sides without their observers, which
    /// would add them to the totals once more).
    private init(_ first: SyncCounts, plus second: SyncCounts) {
        uploaded = first.uploaded + second.uploaded
        downloaded = first.downloaded + second.downloaded
        updated = first.updated + second.updated
        deleted = first.deleted + second.deleted
        conflicts = first.conflicts + second.conflicts
        errors = first.errors + second.errors
        storeUpdated = first.storeUpdated + second.storeUpdated
        storeDeleted = first.storeDeleted + second.storeDeleted
        serverUpdated = first.serverUpdated + second.serverUpdated
        serverDeleted = first.serverDeleted + second.serverDeleted
    }

    /// Adds a run's counts to a total, such as the daemon's since it started.
    public static func += (total: inout SyncCounts, run: SyncCounts) {
        total = SyncCounts(total, plus: run)
    }
}

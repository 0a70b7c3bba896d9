import SystemSupport

/// How a sync run ended.
public enum SyncOutcome: String, Sendable {
    case ok
    case failed
    /// Stopped before deleting because a safety guard tripped; waits for a person. Its raw value is the journal's
    /// word, in `sync_runs` since the first schema and in `contactbox runs` and `/api/status`'s `runs`; the status
    /// page's `last_result`, its attention and `/metrics` call it `deletions_held` (`SyncPass.resultName`).
    case deletionsHeld = "needs-confirmation"
    /// Found unfinished at startup: the process died or the power went during the run.
    case interrupted
}

/// One entry of the sync journal.
public struct SyncRun: Sendable, Equatable {
    public var id: Int64
    /// nil for a run not tied to one remote, or once its remote was removed.
    public var remoteID: Int64?
    /// Unix milliseconds.
    public var startedAt: Int64
    /// nil while running, and forever for a run that never finished.
    public var finishedAt: Int64?
    public var outcome: SyncOutcome?
    public var counts: SyncCounts
    /// A short human-readable note (an error summary); never a whole contact.
    public var message: String?
    /// A sync, or an operation on the box (import, delete, edit, restore, undo) with no remote.
    public var kind: RunKind
    /// What a local operation was asked to do, for people ("undo of run 12").
    public var note: String?

    public init(
        id: Int64, remoteID: Int64?, startedAt: Int64, finishedAt: Int64?, outcome: SyncOutcome?, counts: SyncCounts,
        message: String?, kind: RunKind = .sync, note: String? = nil
    ) {
        self.kind = kind
        self.note = note
        self.id = id
        self.remoteID = remoteID
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.counts = counts
        self.message = message
    }
}

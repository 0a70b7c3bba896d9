/// What made a change, for people: the run its history row belongs to, and that run's remote
/// (`ContactStore.historyWithCauses`, `ContactStore.trash`). A caller puts it in words: "sync with icloud" (a `sync`
/// run and its remote), "import", "undo of run 12" (an `undo` run's note).
public struct ChangeCause: Sendable, Equatable {
    /// The sync run or local operation; nil for a row older than schema 4.
    public var runID: Int64?
    /// What the run was; nil when there is no run.
    public var runKind: RunKind?
    /// The name of the run's remote, else of the history row's; nil when there is none, or it was removed since.
    public var remoteName: String?
    /// What a local operation was asked to do ("undo of run 12", "as of 2026-11-23 16:05"), as its run keeps it.
    public var note: String?
    /// The history row's own words (`replaced by icloud`, `deleted on the command line`): all that a row older
    /// than schema 4 says.
    public var reason: String

    public init(runID: Int64?, runKind: RunKind?, remoteName: String?, note: String?, reason: String) {
        self.runID = runID
        self.runKind = runKind
        self.remoteName = remoteName
        self.note = note
        self.reason = reason
    }
}

/// A history row and what made it.
public struct CausedHistoryEntry: Sendable, Equatable {
    public var entry: HistoryEntry
    public var cause: ChangeCause

    public init(entry: HistoryEntry, cause: ChangeCause) {
        self.entry = entry
        self.cause = cause
    }
}

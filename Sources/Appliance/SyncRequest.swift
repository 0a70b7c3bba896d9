import StatusServer

/// Why a sync pass runs. Requests that arrive while a pass runs are merged into one follow-up pass.
public enum SyncTrigger: String, Sendable, CaseIterable {
    case startup
    case interval
    /// The daily comparison of every item (`full_check`).
    case fullCheck = "full-check"
    case button
    /// A long press: confirm held deletions, or clear an error and retry.
    case longPress = "long-press"
    /// "Sync now" on the status page.
    case statusPage = "status-page"
    /// The network came back after an outage.
    case networkBack = "network-back"
    /// The previous pass could not reach a remote; trying again after a pause.
    case retry
    /// The configuration was reloaded (SIGHUP).
    case reload
    /// The clock was set from the network, and the last pass waited for it.
    case clockSet = "clock-set"
    /// A long press confirmed an undo armed on the status page (or a restore armed on a contact's page): it, then
    /// a pass to carry it to the remotes.
    case undo
    /// A damaged store was recovered from a safety copy (armed on the status page, confirmed by a long press): a
    /// pass that compares every item, so that the remotes bring back what changed since the copy.
    case recover
}

/// One pass to run: why, and how.
public struct SyncRequest: Sendable, Equatable {
    public var triggers: Set<SyncTrigger>
    /// Carry out deletions held by the guard (a long press).
    public var confirmDeletions: Bool
    /// List every remote in full instead of asking for changes.
    public var fullCheck: Bool
    /// Undo this run in the store before syncing (confirmed by a long press). The main loop confirms one undo at a
    /// time and no other until it is done, so two never meet in one request.
    public var undoRun: Int64?
    /// A contact's version to put back before syncing (confirmed by a long press), as an undo is.
    public var restore: PageRestore?

    public init(_ trigger: SyncTrigger, confirmDeletions: Bool = false, fullCheck: Bool = false, undoRun: Int64? = nil)
    {
        self.triggers = [trigger]
        self.confirmDeletions = confirmDeletions
        self.fullCheck = fullCheck || trigger == .fullCheck
        self.undoRun = undoRun
    }

    /// One pass that does what both would have done.
    public func merged(with other: SyncRequest) -> SyncRequest {
        var merged = self
        merged.triggers.formUnion(other.triggers)
        merged.confirmDeletions = confirmDeletions || other.confirmDeletions
        merged.fullCheck = fullCheck || other.fullCheck
        merged.undoRun = undoRun ?? other.undoRun
        merged.restore = restore ?? other.restore
        return merged
    }

    /// For logs: "button, interval".
    public var reasons: String {
        SyncTrigger.allCases.filter { triggers.contains($0) }.map(\.rawValue).joined(separator: ", ")
    }
}

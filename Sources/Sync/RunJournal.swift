import ContactStore
import SystemSupport

/// A sync's row in the run journal, written when the run first changes the store (its history rows point at it),
/// else at its end. A pass that changed nothing and ended as the remote's last run did (ok, within `heartbeat`)
/// writes no row at all: on a card, each row costs two commits and about 25 KB of writes, which at 96 passes a day
/// was more than the whole idle day's budget (`Deploy/bench/writes.sh`). One row every `heartbeat` still says the
/// remote was synced lately, and the daemon syncs at its start anyway.
///
/// A run cut off (a kill, a power cut) before it changed the store leaves no row to mark interrupted; its sync state
/// is in the store, and the next run goes on from it.
final class RunJournal {
    static let heartbeat = Duration.seconds(6 * 3600)

    let store: ContactStore
    let remoteID: Int64
    private(set) var id: Int64?

    init(store: ContactStore, remoteID: Int64) {
        self.store = store
        self.remoteID = remoteID
    }

    /// The run's id, its row written now if it is not yet.
    func begin() throws -> Int64 {
        if let id { return id }
        let new = try store.beginSyncRun(remoteID: remoteID)
        id = new
        return new
    }

    /// Records how the run ended, unless it changed nothing and the journal says so already.
    func finish(_ report: SyncReport) throws {
        if id == nil, report.outcome == .ok, report.counts == SyncCounts(), report.message == nil,
            try store.lastRunEndedOK(remoteID: remoteID, within: Self.heartbeat)
        {
            return
        }
        try store.finishSyncRun(
            id: try begin(), outcome: report.outcome, counts: report.counts, message: report.message)
    }
}

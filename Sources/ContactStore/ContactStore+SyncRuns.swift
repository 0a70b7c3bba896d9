import SQLite
import SystemSupport

// The sync journal. A run is written when it starts, so that one that never finishes (power loss, kill) stays
// visible; the next start marks it interrupted.
extension ContactStore {
    /// Records the start of a run and returns its id.
    public func beginSyncRun(remoteID: Int64?) throws -> Int64 {
        try db.run("INSERT INTO sync_runs (remote_id, started_at) VALUES (?, ?)", remoteID, try stamp())
        return db.lastInsertRowID
    }

    /// Records how run `id` ended.
    public func finishSyncRun(id: Int64, outcome: SyncOutcome, counts: SyncCounts, message: String? = nil) throws {
        try db.run(
            """
            UPDATE sync_runs SET finished_at = ?, outcome = ?, uploaded = ?, downloaded = ?, updated = ?, deleted = ?,
                conflicts = ?, errors = ?, message = ?
            WHERE id = ?
            """, try stamp(), outcome.rawValue, counts.uploaded, counts.downloaded, counts.updated, counts.deleted,
            counts.conflicts, counts.errors, message, id)
        guard db.changes == 1 else {
            throw ContactStoreError(.invalidArgument, "no sync run \(id) to finish")
        }
    }

    /// Whether the remote's last run ended ok, with nothing changed, no longer than `within` ago: what a run that
    /// changed nothing need not write again.
    public func lastRunEndedOK(remoteID: Int64, within: Duration) throws -> Bool {
        guard let last = try recentSyncRuns(remoteID: remoteID, limit: 1).first, last.outcome == .ok,
            last.counts == SyncCounts(), last.message == nil, let finished = last.finishedAt
        else { return false }
        return now() - finished < within.wholeMilliseconds
    }

    /// Marks every run that has not finished as interrupted; call once at startup, before any run begins.
    /// Returns how many there were.
    @discardableResult
    public func markUnfinishedSyncRunsInterrupted() throws -> Int {
        try db.run(
            "UPDATE sync_runs SET finished_at = ?, outcome = ? WHERE finished_at IS NULL", try stamp(),
            SyncOutcome.interrupted.rawValue)
        return db.changes
    }

    /// The most recent runs, newest first, of one remote or of all (remoteID nil), local operations included;
    /// with `before`, only runs with a smaller id (the next page).
    public func recentSyncRuns(remoteID: Int64? = nil, before: Int64? = nil, limit: Int = 20) throws -> [SyncRun] {
        try Self.checkLimit(limit)
        let before = before ?? Int64.max
        if let remoteID {
            return try db.query(
                "SELECT \(Self.runColumns) FROM sync_runs WHERE remote_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                remoteID, before, limit, map: Self.syncRun)
        }
        return try db.query(
            "SELECT \(Self.runColumns) FROM sync_runs WHERE id < ? ORDER BY id DESC LIMIT ?", before, limit,
            map: Self.syncRun)
    }

    /// Run `id`, a sync or a local operation.
    public func syncRun(id: Int64) throws -> SyncRun? {
        try db.queryFirst("SELECT \(Self.runColumns) FROM sync_runs WHERE id = ?", id, map: Self.syncRun)
    }

    /// How many history rows of each kind run `id` wrote (kinds with none left out): what it did to the store.
    /// Plain sums in one pass over the run's rows: a `GROUP BY kind` would feed every row to SQLite's sorter first
    /// (every row of a large run; `Deploy/bench/appliance.sh` at 50,000), where this holds one sum a kind.
    public func historyCounts(runID: Int64) throws -> [HistoryKind: Int] {
        let kinds = HistoryKind.allCases
        let row = try db.queryFirst(Self.historyCountsQuery, runID) { row in try kinds.indices.map { try row.int($0) } }
        var counts: [HistoryKind: Int] = [:]
        for (kind, count) in zip(kinds, row ?? []) where count > 0 { counts[kind] = count }
        return counts
    }

    /// One sum per `HistoryKind`, in `allCases` order.
    private static let historyCountsQuery =
        "SELECT "
        + HistoryKind.allCases.map { "coalesce(sum(kind = '\($0.rawValue)'), 0)" }.joined(separator: ", ")
        + " FROM history WHERE run_id = ?"

    /// Starts a local operation (import, delete, edit, restore, undo): a run with no remote, so that its changes
    /// are listed, and undone, like a sync's.
    public func beginOperation(_ kind: RunKind, note: String) throws -> Int64 {
        try db.run(
            "INSERT INTO sync_runs (remote_id, started_at, kind, note) VALUES (NULL, ?, ?, ?)", try stamp(),
            kind.rawValue,
            note)
        return db.lastInsertRowID
    }

    /// Ends local operation `id`, with what it did.
    public func finishOperation(id: Int64, outcome: SyncOutcome = .ok, message: String? = nil) throws {
        try finishSyncRun(id: id, outcome: outcome, counts: SyncCounts(), message: message)
    }

    static let runColumns = """
        id, remote_id, started_at, finished_at, outcome, uploaded, downloaded, updated, deleted, conflicts, errors,
        message, kind, note
        """

    /// A run from the columns of ``runColumns``, in that order.
    static func syncRun(_ row: Row) throws -> SyncRun {
        var outcome: SyncOutcome?
        if let text = try row.optionalString(4) {
            guard let known = SyncOutcome(rawValue: text) else {
                throw ContactStoreError(.corruptRow, "sync run \(try row.int64(0)) has unknown outcome '\(text)'")
            }
            outcome = known
        }
        let kindText = try row.string(12)
        guard let kind = RunKind(rawValue: kindText) else {
            throw ContactStoreError(.corruptRow, "run \(try row.int64(0)) has unknown kind '\(kindText)'")
        }
        let counts = SyncCounts(
            uploaded: try row.int(5), downloaded: try row.int(6), updated: try row.int(7), deleted: try row.int(8),
            conflicts: try row.int(9), errors: try row.int(10))
        return SyncRun(
            id: try row.int64(0), remoteID: try row.optionalInt64(1), startedAt: try row.int64(2),
            finishedAt: try row.optionalInt64(3), outcome: outcome, counts: counts, message: try row.optionalString(11),
            kind: kind, note: try row.optionalString(13))
    }
}

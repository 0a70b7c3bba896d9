import SQLite

// The sync journal. A run is written when it starts, so that one that never finishes (power loss, kill) stays
// visible; the next start marks it interrupted.
extension ContactStore {
    /// Records the start of a run and returns its id.
    public func beginSyncRun(remoteID: Int64?) throws -> Int64 {
        try db.run("INSERT INTO sync_runs (remote_id, started_at) VALUES (?, ?)", remoteID, now())
        return db.lastInsertRowID
    }

    /// Records how run `id` ended.
    public func finishSyncRun(id: Int64, outcome: SyncOutcome, counts: SyncCounts, message: String? = nil) throws {
        try db.run(
            """
            UPDATE sync_runs SET finished_at = ?, outcome = ?, uploaded = ?, downloaded = ?, updated = ?, deleted = ?,
                conflicts = ?, errors = ?, message = ?
            WHERE id = ?
            """, now(), outcome.rawValue, counts.uploaded, counts.downloaded, counts.updated, counts.deleted,
            counts.conflicts, counts.errors, message, id)
        guard db.changes == 1 else {
            throw ContactStoreError(.invalidArgument, "no sync run \(id) to finish")
        }
    }

    /// Marks every run that has not finished as interrupted; call once at startup, before any run begins.
    /// Returns how many there were.
    @discardableResult
    public func markUnfinishedSyncRunsInterrupted() throws -> Int {
        try db.run(
            "UPDATE sync_runs SET finished_at = ?, outcome = ? WHERE finished_at IS NULL", now(),
            SyncOutcome.interrupted.rawValue)
        return db.changes
    }

    /// The most recent runs, newest first, of one remote or of all (remoteID nil).
    public func recentSyncRuns(remoteID: Int64? = nil, limit: Int = 20) throws -> [SyncRun] {
        try Self.checkLimit(limit)
        let columns = """
            id, remote_id, started_at, finished_at, outcome, uploaded, downloaded, updated, deleted, conflicts, errors,
            message
            """
        if let remoteID {
            return try db.query(
                "SELECT \(columns) FROM sync_runs WHERE remote_id = ? ORDER BY id DESC LIMIT ?", remoteID, limit,
                map: Self.syncRun)
        }
        return try db.query("SELECT \(columns) FROM sync_runs ORDER BY id DESC LIMIT ?", limit, map: Self.syncRun)
    }

    private static func syncRun(_ row: Row) throws -> SyncRun {
        var outcome: SyncOutcome?
        if let text = try row.optionalString(4) {
            guard let known = SyncOutcome(rawValue: text) else {
                throw ContactStoreError(.corruptRow, "sync run \(try row.int64(0)) has unknown outcome '\(text)'")
            }
            outcome = known
        }
        let counts = SyncCounts(
            uploaded: try row.int(5), downloaded: try row.int(6), updated: try row.int(7), deleted: try row.int(8),
            conflicts: try row.int(9), errors: try row.int(10))
        return SyncRun(
            id: try row.int64(0), remoteID: try row.optionalInt64(1), startedAt: try row.int64(2),
            finishedAt: try row.optionalInt64(3), outcome: outcome, counts: counts, message: try row.optionalString(11))
    }
}

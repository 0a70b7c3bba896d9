import SQLite

// The restore points the status page offers: the latest runs that changed the store, each with what it did.
extension ContactStore {
    /// One run that changed the store, with its remote's name and its history rows counted by kind: what an undo
    /// of it would take back.
    public struct RestorePoint: Sendable, Equatable {
        public var run: SyncRun
        /// The remote's name for a sync; nil for a local operation or once the remote was removed.
        public var remoteName: String?
        public var created: Int
        public var updated: Int
        public var deleted: Int

        public init(run: SyncRun, remoteName: String?, created: Int, updated: Int, deleted: Int) {
            self.run = run
            self.remoteName = remoteName
            self.created = created
            self.updated = updated
            self.deleted = deleted
        }
    }

    /// The `limit` newest runs with history rows, newest first. A run that changed nothing (most syncs) is no
    /// restore point and is passed over by the index alone: each step back is one seek of `history_run` (the
    /// largest `run_id` below the last), so a store with thousands of quiet runs costs `limit` seeks. Each run's
    /// rows are then counted by `historyCounts`, without a sorter (a `GROUP BY` over the joined rows held a large
    /// run's rows in SQLite's sorter: `Deploy/bench/appliance.sh` at 50,000).
    public func restorePoints(limit: Int = 10) throws -> [RestorePoint] {
        try Self.checkLimit(limit)
        return try db.transaction(.deferred) {
            let runs = try db.query(
                """
                WITH RECURSIVE recent(id, n) AS (
                    SELECT (SELECT max(run_id) FROM history WHERE run_id IS NOT NULL), 1
                    UNION ALL
                    SELECT (SELECT max(run_id) FROM history WHERE run_id IS NOT NULL AND run_id < recent.id), n + 1
                    FROM recent WHERE recent.id IS NOT NULL AND n < ?
                )
                SELECT r.id, r.remote_id, r.started_at, r.finished_at, r.outcome, r.uploaded, r.downloaded,
                    r.updated, r.deleted, r.conflicts, r.errors, r.message, r.kind, r.note, m.name
                FROM recent JOIN sync_runs r ON r.id = recent.id LEFT JOIN remotes m ON m.id = r.remote_id
                ORDER BY r.id DESC
                """, limit
            ) { row in (run: try Self.syncRun(row), remoteName: try row.optionalString(14)) }
            return try runs.map { run, remoteName in
                let counts = try historyCounts(runID: run.id)
                return RestorePoint(
                    run: run, remoteName: remoteName, created: counts[.created] ?? 0, updated: counts[.updated] ?? 0,
                    deleted: counts[.deleted] ?? 0)
            }
        }
    }
}

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

    /// The `limit` newest runs with history rows, newest first, in one query. A run that changed nothing (most
    /// syncs) is no restore point and is passed over by the index alone: each step back is one seek of
    /// `history_run` (the largest `run_id` below the last), so a store with thousands of quiet runs costs `limit`
    /// seeks, and the counts read the rows of those runs only.
    public func restorePoints(limit: Int = 10) throws -> [RestorePoint] {
        try Self.checkLimit(limit)
        return try db.query(
            """
            WITH RECURSIVE recent(id, n) AS (
                SELECT (SELECT max(run_id) FROM history WHERE run_id IS NOT NULL), 1
                UNION ALL
                SELECT (SELECT max(run_id) FROM history WHERE run_id IS NOT NULL AND run_id < recent.id), n + 1
                FROM recent WHERE recent.id IS NOT NULL AND n < ?
            )
            SELECT r.id, r.remote_id, r.started_at, r.finished_at, r.outcome, r.uploaded, r.downloaded, r.updated,
                r.deleted, r.conflicts, r.errors, r.message, r.kind, r.note, m.name,
                sum(h.kind = 'created'), sum(h.kind = 'updated'), sum(h.kind = 'deleted')
            FROM recent JOIN sync_runs r ON r.id = recent.id LEFT JOIN remotes m ON m.id = r.remote_id
                JOIN history h ON h.run_id = r.id
            GROUP BY r.id ORDER BY r.id DESC
            """, limit
        ) { row in
            RestorePoint(
                run: try Self.syncRun(row), remoteName: try row.optionalString(14), created: try row.int(15),
                updated: try row.int(16), deleted: try row.int(17))
        }
    }
}

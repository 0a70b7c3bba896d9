import SQLite
import SystemSupport

// Retention: the only way history rows go. Rows older than the configured age go, and beyond the configured
// number per contact the oldest go; never the last version of a deleted contact within the age (what `restore UID`
// brings back). Each transaction removes at most `chunkLimit` rows, so a first prune of a large history never
// holds the write lock long (the daemon prunes after each sync pass).
//
// The daemon prunes after every pass, and most passes add no history at all, so a pass with nothing to prune must
// cost next to nothing: the age needs one seek in `history_time`; the count looks only at the UIDs of rows added
// since its last complete pass (the `retention` row, schema 5). Walking every UID in `history_uid` instead read the
// whole index on every pass (tens of megabytes for a long history, from the SD card, through a page cache the
// service's 20 MB cap keeps small: `Deploy/bench/history.sh`); that walk is left for a first pass and for a count
// lowered since the last one.
extension ContactStore {
    /// What retention keeps: rows younger than `maxAge`, at most `maxVersions` per contact (nil: no
    /// limit by count).
    public struct Retention: Sendable, Equatable {
        public var maxAge: Duration
        public var maxVersions: Int?

        public init(maxAge: Duration, maxVersions: Int?) {
            self.maxAge = maxAge
            self.maxVersions = maxVersions
        }
    }

    /// Removes the history rows `retention` does not keep, a chunk of at most `chunkLimit` per transaction;
    /// `shouldStop` is asked between chunks; by age only while the clock is set. Returns how many went.
    @discardableResult
    public func pruneHistory(_ retention: Retention, shouldStop: () -> Bool = { false }) throws -> Int {
        var removed = 0
        let cutoff = now() - retention.maxAge.wholeMilliseconds
        // history_time: the oldest first, a chunk at a time. Not while the clock is not set: a clock ahead would
        // find every version old.
        while clockStatus().synchronized, !shouldStop() {
            let count = try db.transaction {
                try removeRows(
                    "SELECT id FROM history WHERE recorded_at < ? ORDER BY recorded_at, id LIMIT ?", cutoff,
                    Self.chunkLimit)
            }
            removed += count
            if count < Self.chunkLimit { break }
        }
        guard let maxVersions = retention.maxVersions, maxVersions > 0, !shouldStop() else { return removed }
        // Rows added from here on are looked at by the next pass.
        let newest = try db.scalarInt64("SELECT max(id) FROM history") ?? 0
        let mark = try db.queryFirst("SELECT counted_through, max_versions FROM retention WHERE id = 1") { row in
            (through: try row.int64(0), maxVersions: try row.optionalInt64(1))
        }
        // The last pass's promise holds for a count at least as large, and while no id at or below its mark can be
        // handed out again (rowids are reused only once the largest rows went: the whole history pruned by age).
        let complete: Bool
        if let mark, let counted = mark.maxVersions, counted <= Int64(maxVersions), mark.through <= newest {
            complete = try pruneVersions(
                ofRowsAfter: mark.through, keeping: maxVersions, removed: &removed, shouldStop: shouldStop)
        } else {
            complete = try pruneVersionsOfEveryUID(keeping: maxVersions, removed: &removed, shouldStop: shouldStop)
        }
        if complete {
            try db.run(
                "UPDATE retention SET counted_through = ?, max_versions = ? WHERE id = 1", newest, maxVersions)
        }
        return removed
    }

    /// The time before which retention has removed versions (unix milliseconds): `as of` an earlier time may give a
    /// state the store did not have then. Nil when retention has removed nothing.
    public func historyPrunedBefore() throws -> Int64? {
        let time = try db.scalarInt64("SELECT pruned_before FROM retention WHERE id = 1") ?? 0
        return time > 0 ? time : nil
    }

    /// The count pass over every UID with more rows than kept (history_uid, a page of UIDs at a time): reads the
    /// whole index. Returns whether it went to the end.
    private func pruneVersionsOfEveryUID(keeping: Int, removed: inout Int, shouldStop: () -> Bool) throws -> Bool {
        var afterUID = ""
        while !shouldStop() {
            let uids = try db.query(
                "SELECT uid FROM history WHERE uid > ? GROUP BY uid HAVING count(*) > ? ORDER BY uid LIMIT ?", afterUID,
                keeping, Self.chunkLimit
            ) { try $0.string(0) }
            guard let last = uids.last else { return true }
            for uid in uids {
                removed += try pruneVersions(of: uid, keeping: keeping, shouldStop: shouldStop)
            }
            afterUID = last
        }
        return false
    }

    /// The count pass over the UIDs of the rows after `id` only, a page of rows at a time (the primary key): a UID
    /// with no row since the last complete pass still has at most what that pass kept. Returns whether it went to
    /// the end.
    private func pruneVersions(ofRowsAfter id: Int64, keeping: Int, removed: inout Int, shouldStop: () -> Bool)
        throws -> Bool
    {
        var after = id
        while !shouldStop() {
            let rows = try db.query(
                "SELECT id, uid FROM history WHERE id > ? ORDER BY id LIMIT ?", after, Self.chunkLimit
            ) { row in (id: try row.int64(0), uid: try row.string(1)) }
            guard let last = rows.last else { return true }
            var seen = Set<String>()
            for row in rows where seen.insert(row.uid).inserted {
                removed += try pruneVersions(of: row.uid, keeping: keeping, shouldStop: shouldStop)
            }
            after = last.id
        }
        return false
    }

    /// Removes the rows of `uid` older than its newest `keeping`, but not its newest `deleted` row (the version
    /// `restore UID` brings back).
    private func pruneVersions(of uid: String, keeping: Int, shouldStop: () -> Bool) throws -> Int {
        var removed = 0
        while !shouldStop() {
            let count = try db.transaction {
                // The oldest row kept: the `keeping`-th newest.
                guard
                    let oldestKept = try db.scalarInt64(
                        "SELECT id FROM history WHERE uid = ? ORDER BY id DESC LIMIT 1 OFFSET ?", uid, keeping - 1)
                else { return 0 }
                let newestDeleted =
                    try db.scalarInt64("SELECT max(id) FROM history WHERE uid = ? AND kind = 'deleted'", uid) ?? 0
                return try removeRows(
                    "SELECT id FROM history WHERE uid = ? AND id < ? AND id <> ? ORDER BY id LIMIT ?", uid,
                    oldestKept, newestDeleted, Self.chunkLimit)
            }
            removed += count
            if count < Self.chunkLimit { break }
        }
        return removed
    }

    /// Deletes the rows whose ids `select` gives (at most `chunkLimit`) and moves `pruned_before` up to the newest
    /// of their times, in the caller's transaction. Returns how many went.
    private func removeRows(_ select: String, _ arguments: (any SQLBindable)?...) throws -> Int {
        let times = try db.query(
            "DELETE FROM history WHERE id IN (\(select)) RETURNING recorded_at", arguments: arguments
        ) { try $0.int64(0) }
        if let newest = times.max() {
            try db.run("UPDATE retention SET pruned_before = max(pruned_before, ?) WHERE id = 1", newest)
        }
        return times.count
    }
}

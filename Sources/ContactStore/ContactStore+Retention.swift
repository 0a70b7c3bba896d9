import SQLite
import SystemSupport

// Retention: the only way history rows go. Rows older than the configured age go, and beyond the configured
// number per contact the oldest go; never the last version of a deleted contact within the age (what `restore UID`
// brings back). Each transaction removes at most `chunkLimit` rows, so a first prune of a large history never
// holds the write lock long (the daemon prunes after each sync pass).
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
    /// `shouldStop` is asked between chunks. Returns how many went.
    @discardableResult
    public func pruneHistory(_ retention: Retention, shouldStop: () -> Bool = { false }) throws -> Int {
        var removed = 0
        let cutoff = now() - retention.maxAge.wholeMilliseconds
        // history_time: the oldest first, a chunk at a time.
        while !shouldStop() {
            let count = try db.transaction {
                try db.run(
                    """
                    DELETE FROM history WHERE id IN
                        (SELECT id FROM history WHERE recorded_at < ? ORDER BY recorded_at, id LIMIT ?)
                    """, cutoff, Self.chunkLimit)
                return db.changes
            }
            removed += count
            if count < Self.chunkLimit { break }
        }
        guard let maxVersions = retention.maxVersions, maxVersions > 0 else { return removed }
        var afterUID = ""
        while !shouldStop() {
            // history_uid: UIDs with more rows than kept, a page of UIDs at a time.
            let uids = try db.query(
                "SELECT uid FROM history WHERE uid > ? GROUP BY uid HAVING count(*) > ? ORDER BY uid LIMIT ?", afterUID,
                maxVersions, Self.chunkLimit
            ) { try $0.string(0) }
            guard let last = uids.last else { break }
            for uid in uids {
                removed += try pruneVersions(of: uid, keeping: maxVersions, shouldStop: shouldStop)
            }
            afterUID = last
        }
        return removed
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
                try db.run(
                    """
                    DELETE FROM history WHERE id IN (
                        SELECT id FROM history WHERE uid = ? AND id < ? AND id <> ? ORDER BY id LIMIT ?)
                    """, uid, oldestKept, newestDeleted, Self.chunkLimit)
                return db.changes
            }
            removed += count
            if count < Self.chunkLimit { break }
        }
        return removed
    }
}

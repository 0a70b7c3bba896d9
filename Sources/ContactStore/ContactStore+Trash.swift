import SQLite

// The trash: the contacts deleted within the history's age, newest deletion first, each with what deleted it. A
// tombstone stays in the store for good (a sync needs it), but its deletion's history row goes with retention's age,
// and with it the version that `restore` would bring back: the trash is the tombstones that still have that row.
extension ContactStore {
    /// The tombstones whose deletion is still in the history, newest deletion first (then by row id), after `cursor`
    /// (nil: from the newest), at most `limit`. Pass the last entry's `cursor` to get the next page; an empty page
    /// is the end. A contact deleted and brought back since is live, not in the trash; one deleted twice is in it
    /// once, with its last deletion.
    public func trash(after cursor: TrashCursor? = nil, limit: Int = ContactStore.chunkLimit) throws -> [TrashEntry] {
        try Self.checkLimit(limit)
        var conditions = ["c.deleted = 1"]
        var arguments: [(any SQLBindable)?] = []
        // A tombstone's changed_at is its deletion's time; retention removes the rows older than its age first and
        // never a UID's newest `deleted` row by count, so every tombstone from the oldest history row on still has
        // its deletion, and the walk (contacts_deleted, newest first) stops there instead of going on through every
        // tombstone whose deletion was pruned.
        conditions.append("c.changed_at >= (SELECT min(recorded_at) FROM history)")
        if let cursor {
            // Means (changed_at, id) < (cursor), spelled out so that SQLite seeks (as `contacts(after:)` does).
            conditions.append("c.changed_at <= ? AND (c.changed_at < ? OR c.id < ?)")
            arguments += [cursor.deletedAt, cursor.deletedAt, cursor.contactID]
        }
        arguments.append(limit)
        return try trashEntries(where: conditions, arguments: arguments)
    }

    /// The trash's entry of `uid`: nil when it is live, unknown, or a tombstone whose deletion retention removed
    /// (for a contact's page: a tombstone there is "deleted" only while the trash has it).
    public func trashEntry(uid: String) throws -> TrashEntry? {
        try trashEntries(
            where: ["c.uid = ?", "c.deleted = 1", "c.changed_at >= (SELECT min(recorded_at) FROM history)"],
            arguments: [uid, 1]
        ).first
    }

    /// The entries of the tombstones `conditions` keep, newest first; `arguments` end with the limit.
    private func trashEntries(where conditions: [String], arguments: [(any SQLBindable)?]) throws -> [TrashEntry] {
        // The UID's newest `deleted` row: history_uid from its end, a contact's few rows.
        let sql = """
            SELECT c.id, c.uid, c.display_name, c.changed_at, \(Self.causeColumns(of: "h"))
            FROM contacts AS c
            JOIN history AS h ON h.id = (
                SELECT id FROM history WHERE uid = c.uid AND kind = 'deleted' ORDER BY id DESC LIMIT 1)
            \(Self.causeJoins(of: "h"))
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY c.changed_at DESC, c.id DESC LIMIT ?
            """
        return try db.query(sql, arguments: arguments) { row in
            TrashEntry(
                contactID: try row.int64(0), uid: try row.string(1), displayName: try row.string(2),
                deletedAt: try row.int64(3), historyID: try row.int64(4), cause: try Self.changeCause(row, at: 4))
        }
    }
}

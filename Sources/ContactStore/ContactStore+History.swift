import SQLite
import VCard

// Reading the history: one contact's versions, the latest changes of the store, and what a contact looked like at
// a point in time. Every read is a keyset page of at most `chunkLimit` rows or one indexed lookup.
extension ContactStore {
    /// The history rows of `uid`, newest first, at most `limit`; with `before`, only rows with a smaller id.
    public func history(uid: String, before: Int64? = nil, limit: Int = ContactStore.chunkLimit) throws
        -> [HistoryEntry]
    {
        try Self.checkLimit(limit)
        return try db.query(
            "SELECT \(Self.historyColumns) FROM history WHERE uid = ? AND id < ? ORDER BY id DESC LIMIT ?", uid,
            before ?? Int64.max, limit, map: historyEntry)
    }

    /// The history rows of `uid` as `history(uid:before:limit:)` gives them, each with what made it: its run, the
    /// run's kind and note, and the remote's name, read in the same query.
    public func historyWithCauses(uid: String, before: Int64? = nil, limit: Int = ContactStore.chunkLimit) throws
        -> [CausedHistoryEntry]
    {
        try Self.checkLimit(limit)
        let columnCount = 10
        return try db.query(
            """
            SELECT \(Self.historyColumns(of: "h")), \(Self.causeColumns(of: "h")) FROM history AS h
            \(Self.causeJoins(of: "h"))
            WHERE h.uid = ? AND h.id < ? ORDER BY h.id DESC LIMIT ?
            """, uid, before ?? Int64.max, limit
        ) { row in
            CausedHistoryEntry(
                entry: try historyEntry(row), cause: try Self.changeCause(row, at: columnCount))
        }
    }

    /// The latest history rows of the whole store, newest first; with `before`, only rows with a smaller id.
    public func latestHistory(before: Int64? = nil, limit: Int = ContactStore.chunkLimit) throws -> [HistoryEntry] {
        try Self.checkLimit(limit)
        return try db.query(
            "SELECT \(Self.historyColumns) FROM history WHERE id < ? ORDER BY id DESC LIMIT ?", before ?? Int64.max,
            limit, map: historyEntry)
    }

    /// History row `id`.
    public func historyEntry(id: Int64) throws -> HistoryEntry? {
        try db.queryFirst("SELECT \(Self.historyColumns) FROM history WHERE id = ?", id, map: historyEntry)
    }

    /// The state `entry`'s change led to: the state before the next change of its UID, else the current one.
    public func state(after entry: HistoryEntry) throws -> ContactState {
        if let next = try db.queryFirst(
            """
            SELECT \(Self.historyColumns) FROM history WHERE uid = ? AND id > ? AND kind <> 'archived'
            ORDER BY id LIMIT 1
            """, entry.uid, entry.id, map: historyEntry), let state = next.stateBefore
        {
            return state
        }
        return try currentState(uid: entry.uid)
    }

    /// The state of `uid` now.
    public func currentState(uid: String) throws -> ContactState {
        guard let contact = try contact(uid: uid) else { return .absent }
        return Self.state(of: contact)
    }

    /// The state of `uid` at `time` (unix milliseconds): the state before its first change after `time`, else its
    /// state now; absent before its row was created. Rows pruned by retention are missing: a time older than the
    /// retained history gives the oldest state still known.
    public func state(uid: String, at time: Int64) throws -> ContactState {
        guard let contact = try contact(uid: uid) else { return .absent }
        return try state(of: contact, at: time)
    }

    func state(of contact: StoredContact, at time: Int64) throws -> ContactState {
        if contact.createdAt > time { return .absent }
        // history_uid: one seek, then the contact's few rows (retention keeps at most `max_versions`) by time.
        if let first = try db.queryFirst(
            """
            SELECT \(Self.historyColumns) FROM history WHERE uid = ? AND recorded_at > ? AND kind <> 'archived'
            ORDER BY recorded_at, id LIMIT 1
            """, contact.uid, time, map: historyEntry), let state = first.stateBefore
        {
            return state
        }
        return Self.state(of: contact)
    }

    /// Calls `body` with every contact live at `time`, as it was then (its UID and vCard), in row order, a page of
    /// at most `chunkLimit` contacts at a time: the store as it was then, for `export --as-of`.
    public func forEachContact(asOf time: Int64, _ body: (_ uid: String, _ text: CardText) throws -> Void) throws {
        try forEachContactPage { page in
            for contact in page {
                if case .live(let text, _) = try state(of: contact, at: time) { try body(contact.uid, text) }
            }
        }
    }

    /// Every contact row, tombstones included, in row order, a keyset page at a time.
    func forEachContactPage(_ body: ([StoredContact]) throws -> Void) throws {
        var after: Int64 = 0
        while true {
            let page = try db.query(
                "SELECT \(Self.contactColumns) FROM contacts WHERE id > ? ORDER BY id LIMIT ?", after, Self.chunkLimit,
                map: storedContact)
            guard let last = page.last else { return }
            try body(page)
            after = last.id
        }
    }

    /// The number of history rows and the bytes their versions take (the vCard text; SQLite's overhead aside).
    public func historySize() throws -> (rows: Int64, bytes: Int64) {
        let rows = try db.scalarInt64("SELECT count(*) FROM history") ?? 0
        let bytes =
            try db.scalarInt64(
                """
                SELECT coalesce(sum(length(vcard) + length(hash) + length(reason)
                    + coalesce((SELECT length(text) FROM texts WHERE texts.id = history.text_id), 0)), 0)
                FROM history
                """) ?? 0
        return (rows, bytes)
    }

    static func state(of contact: StoredContact) -> ContactState {
        contact.deleted ? .absent : .live(text: contact.text, hash: contact.hash)
    }

    static let historyColumns =
        "id, uid, \(smallText(of: "history")), hash, reason, recorded_at, remote_id, kind, run_id, text_id"

    /// `historyColumns` of `table`, or its alias in a join.
    static func historyColumns(of table: String) -> String {
        ["id", "uid", smallText(of: table), "hash", "reason", "recorded_at", "remote_id", "kind", "run_id", "text_id"]
            .map { $0.hasPrefix("CASE") ? $0 : "\(table).\($0)" }.joined(separator: ", ")
    }

    /// What `changeCause` reads of the history row `table` (its alias) and of `causeJoins`: the row id, then the
    /// cause's six columns.
    static func causeColumns(of table: String) -> String {
        "\(table).id, \(table).run_id, cause_run.kind, cause_run.note,"
            + " coalesce(cause_run_remote.name, cause_row_remote.name), \(table).reason"
    }

    /// The run of the history row `table` (its alias), and the remote of the run, else of the row: each a lookup by
    /// primary key.
    static func causeJoins(of table: String) -> String {
        """
        LEFT JOIN sync_runs AS cause_run ON cause_run.id = \(table).run_id
        LEFT JOIN remotes AS cause_run_remote ON cause_run_remote.id = cause_run.remote_id
        LEFT JOIN remotes AS cause_row_remote ON cause_row_remote.id = \(table).remote_id
        """
    }

    /// The cause of the `causeColumns` from column `first` + 1 on (column `first` is the history row's id).
    static func changeCause(_ row: Row, at first: Int) throws -> ChangeCause {
        var runKind: RunKind?
        if let text = try row.optionalString(first + 2) {
            guard let kind = RunKind(rawValue: text) else {
                throw ContactStoreError(.corruptRow, "run \(try row.int64(first + 1)) has unknown kind '\(text)'")
            }
            runKind = kind
        }
        return ChangeCause(
            runID: try row.optionalInt64(first + 1), runKind: runKind, remoteName: try row.optionalString(first + 4),
            note: try row.optionalString(first + 3), reason: try row.string(first + 5))
    }

    func historyEntry(_ row: Row) throws -> HistoryEntry {
        let id = try row.int64(0)
        let kindText = try row.string(7)
        guard let kind = HistoryKind(rawValue: kindText) else {
            throw ContactStoreError(.corruptRow, "history row \(id) has unknown kind '\(kindText)'")
        }
        let place = TextPlace(table: "history", rowID: id, textID: try row.optionalInt64(9))
        let (text, largeText) = try rowText(row, column: 2, place: place, reading: true)
        var entry = HistoryEntry(
            id: id, uid: try row.string(1), text: text, hash: try row.string(3), reason: try row.string(4),
            recordedAt: try row.int64(5), remoteID: try row.optionalInt64(6), kind: kind,
            runID: try row.optionalInt64(8))
        entry.largeText = largeText
        return entry
    }
}

import SQLite

// The remotes and, per remote, the state of each item after the last sync. Plain CRUD: the sync engine decides.
extension ContactStore {
    static let remoteColumns =
        "id, name, kind, url, sync_token, created_at, synced_seq, book_url, capabilities, write_concurrency, write_form"

    /// Adds a remote; its name must be unused (a constraint violation otherwise).
    public func addRemote(name: String, kind: Remote.Kind, url: String) throws -> Remote {
        let time = now()
        try db.run(
            "INSERT INTO remotes (name, kind, url, sync_token, created_at) VALUES (?, ?, ?, NULL, ?)", name,
            kind.rawValue, url, time)
        return Remote(id: db.lastInsertRowID, name: name, kind: kind, url: url, syncToken: nil, createdAt: time)
    }

    public func remote(named name: String) throws -> Remote? {
        try db.queryFirst("SELECT \(Self.remoteColumns) FROM remotes WHERE name = ?", name, map: Self.remote)
    }

    public func remote(id: Int64) throws -> Remote? {
        try db.queryFirst("SELECT \(Self.remoteColumns) FROM remotes WHERE id = ?", id, map: Self.remote)
    }

    /// All remotes in the order they were added (a box has a handful).
    public func remotes() throws -> [Remote] {
        try db.query("SELECT \(Self.remoteColumns) FROM remotes ORDER BY id LIMIT ?", Self.chunkLimit, map: Self.remote)
    }

    /// Stores the token of this run's listing: the items created before that listing are covered by it now.
    public func setSyncToken(_ token: String?, remoteID: Int64) throws {
        try db.transaction {
            try db.run("UPDATE remotes SET sync_token = ? WHERE id = ?", token, remoteID)
            try db.run(
                "UPDATE remote_items SET created_here = 0 WHERE remote_id = ? AND created_here = 2 AND created_here <> 0",
                remoteID)
        }
    }

    /// Remembers how many writes at once the remote takes without refusing.
    public func setWriteConcurrency(_ concurrency: Int, remoteID: Int64) throws {
        try db.run("UPDATE remotes SET write_concurrency = ? WHERE id = ?", concurrency, remoteID)
    }

    /// Remembers the form in which the remote keeps what it is sent intact (`Remote.writeForm`).
    public func setWriteForm(_ form: Set<String>, remoteID: Int64) throws {
        try db.run(
            "UPDATE remotes SET write_form = ? WHERE id = ?", form.isEmpty ? nil : form.sorted().joined(separator: " "),
            remoteID)
    }

    /// Records what discovery found for a remote.
    public func setDiscovery(bookURL: String, capabilities: [String], remoteID: Int64) throws {
        try db.run(
            "UPDATE remotes SET book_url = ?, capabilities = ? WHERE id = ?", bookURL,
            capabilities.joined(separator: ","), remoteID)
    }

    /// Points a remote at another place: everything known about the old one (saved item states, token, watermark,
    /// discovery) is forgotten, and the next sync starts afresh, matching contacts by UID and content.
    public func resetRemote(id: Int64, url: String) throws {
        try deleteItemStates(remoteID: id)
        try db.transaction {
            try db.run(
                """
                UPDATE remotes SET url = ?, sync_token = NULL, synced_seq = 0, book_url = NULL, capabilities = NULL,
                    write_concurrency = NULL
                WHERE id = ?
                """, url, id)
        }
    }

    /// Records that every local change up to `seq` has reached the remote.
    public func setSyncedSeq(_ seq: Int64, remoteID: Int64) throws {
        try db.run("UPDATE remotes SET synced_seq = ? WHERE id = ?", seq, remoteID)
    }

    /// Removes a remote and its item states; history and journal entries stay, no longer pointing at it.
    @discardableResult
    public func deleteRemote(id: Int64) throws -> Bool {
        try deleteItemStates(remoteID: id)
        try db.run("DELETE FROM remotes WHERE id = ?", id)
        return db.changes > 0
    }

    /// Gives a remote another name (the household renamed it): its item states, token and runs stay with it, so
    /// the next sync goes on where the last one ended. The name must be unused (a constraint violation otherwise).
    public func renameRemote(id: Int64, to name: String) throws {
        try db.run("UPDATE remotes SET name = ? WHERE id = ?", name, id)
    }

    /// A remote's saved item states, deleted a chunk at a time: a book of 10,000 cards is not one transaction.
    private func deleteItemStates(remoteID id: Int64) throws {
        repeat {
            try db.run(
                """
                DELETE FROM remote_items WHERE remote_id = ?1 AND uid IN (
                    SELECT uid FROM remote_items WHERE remote_id = ?1 LIMIT ?2)
                """, id, Self.chunkLimit)
        } while db.changes > 0
    }

    private static func remote(_ row: Row) throws -> Remote {
        let kindText = try row.string(2)
        guard let kind = Remote.Kind(rawValue: kindText) else {
            throw ContactStoreError(.corruptRow, "remote \(try row.int64(0)) has unknown kind '\(kindText)'")
        }
        return Remote(
            id: try row.int64(0), name: try row.string(1), kind: kind, url: try row.string(3),
            syncToken: try row.optionalString(4), createdAt: try row.int64(5), syncedSeq: try row.int64(6),
            bookURL: try row.optionalString(7),
            capabilities: (try row.optionalString(8) ?? "").split(separator: ",").map(String.init),
            writeConcurrency: try row.optionalInt(9),
            writeForm: Set((try row.optionalString(10) ?? "").split(separator: " ").map(String.init)))
    }

    // MARK: Item states

    static let itemColumns = "remote_id, uid, href, etag, hash"

    /// Saves the state of one item, replacing the previous state of the same UID. An href already used by another
    /// UID of the same remote is a constraint violation: delete that state first. `created` says this client has
    /// just created the item on the remote (see `settleListing`).
    public func upsertRemoteItem(_ item: RemoteItemState, created: Bool = false) throws {
        try db.run(
            """
            INSERT INTO remote_items (remote_id, uid, href, etag, hash, created_here) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (remote_id, uid) DO UPDATE SET href = excluded.href, etag = excluded.etag,
            hash = excluded.hash, created_here = max(created_here, excluded.created_here)
            """, item.remoteID, item.uid, item.href, item.etag, item.hash, created ? 1 : 0)
    }

    @discardableResult
    public func deleteRemoteItem(remoteID: Int64, uid: String) throws -> Bool {
        try db.run("DELETE FROM remote_items WHERE remote_id = ? AND uid = ?", remoteID, uid)
        return db.changes > 0
    }

    public func remoteItem(remoteID: Int64, uid: String) throws -> RemoteItemState? {
        try db.queryFirst(
            "SELECT \(Self.itemColumns) FROM remote_items WHERE remote_id = ? AND uid = ?", remoteID, uid,
            map: Self.remoteItem)
    }

    public func remoteItem(remoteID: Int64, href: String) throws -> RemoteItemState? {
        try db.queryFirst(
            "SELECT \(Self.itemColumns) FROM remote_items WHERE remote_id = ? AND href = ?", remoteID, href,
            map: Self.remoteItem)
    }

    /// A keyset page of one remote's item states in UID order, starting after `afterUID` (nil: from the start).
    public func remoteItems(
        remoteID: Int64, afterUID: String?, limit: Int = ContactStore.chunkLimit
    ) throws -> [RemoteItemState] {
        try Self.checkLimit(limit)
        // An empty string sorts before every UID, so "after nothing" and "from the start" are the same query.
        return try db.query(
            "SELECT \(Self.itemColumns) FROM remote_items WHERE remote_id = ? AND uid > ? ORDER BY uid LIMIT ?",
            remoteID, afterUID ?? "", limit, map: Self.remoteItem)
    }

    /// The names of the remotes whose saved item states hold `uid` (from their last sync), in the order the remotes
    /// were added. One seek in `(remote_id, uid)` per remote: a box has a handful.
    public func remoteNames(holding uid: String) throws -> [String] {
        try db.query(
            """
            SELECT name FROM remotes
            WHERE EXISTS (SELECT 1 FROM remote_items WHERE remote_id = remotes.id AND uid = ?)
            ORDER BY id LIMIT ?
            """, uid, Self.chunkLimit
        ) { try $0.string(0) }
    }

    public func remoteItemCount(remoteID: Int64) throws -> Int {
        let count = try db.scalarInt64("SELECT count(*) FROM remote_items WHERE remote_id = ?", remoteID)
        return Int(truncatingIfNeeded: count ?? 0)
    }

    private static func remoteItem(_ row: Row) throws -> RemoteItemState {
        RemoteItemState(
            remoteID: try row.int64(0), uid: try row.string(1), href: try row.string(2),
            etag: try row.optionalString(3), hash: try row.string(4))
    }
}

/// A version of a contact that a remote refused, and the server's reason.
public struct RefusedItem: Sendable, Equatable {
    public var uid: String
    public var hash: String
    public var reason: String
    /// Unix milliseconds.
    public var refusedAt: Int64
}

// Refusals: reported once per version, sent again only when the contact changes.
extension ContactStore {
    public func refusal(remoteID: Int64, uid: String) throws -> RefusedItem? {
        try db.queryFirst(
            "SELECT uid, hash, reason, refused_at FROM refused_items WHERE remote_id = ? AND uid = ?", remoteID, uid,
            map: Self.refusedItem)
    }

    public func recordRefusal(remoteID: Int64, uid: String, hash: String, reason: String) throws {
        try db.run(
            "INSERT OR REPLACE INTO refused_items (remote_id, uid, hash, reason, refused_at) VALUES (?, ?, ?, ?, ?)",
            remoteID, uid, hash, reason, now())
    }

    public func clearRefusal(remoteID: Int64, uid: String) throws {
        try db.run("DELETE FROM refused_items WHERE remote_id = ? AND uid = ?", remoteID, uid)
    }

    /// The latest refusals of one remote, newest first.
    public func refusals(remoteID: Int64, limit: Int = ContactStore.chunkLimit) throws -> [RefusedItem] {
        try Self.checkLimit(limit)
        return try db.query(
            """
            SELECT uid, hash, reason, refused_at FROM refused_items WHERE remote_id = ?
            ORDER BY refused_at DESC, uid LIMIT ?
            """, remoteID, limit, map: Self.refusedItem)
    }

    private static func refusedItem(_ row: Row) throws -> RefusedItem {
        RefusedItem(
            uid: try row.string(0), hash: try row.string(1), reason: try row.string(2), refusedAt: try row.int64(3))
    }
}

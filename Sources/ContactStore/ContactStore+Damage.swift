import SQLite

/// A card a remote damaged: the version sent, the server's copy of it, and what the server changed.
public struct DamagedItem: Sendable, Equatable {
    public var uid: String
    /// The version sent: the store's, which stays the truth.
    public var hash: String
    /// The server's copy of that version, which stands for it on that remote.
    public var remoteHash: String
    /// What the server changed, in words.
    public var damage: String
    /// Unix milliseconds.
    public var damagedAt: Int64
}

// Damaged items: a server stored something else than it was sent. Reported once, when first seen; the server's copy
// is never read back as an edit while the row stands.
extension ContactStore {
    public func damage(remoteID: Int64, uid: String) throws -> DamagedItem? {
        try db.queryFirst(
            "SELECT \(Self.damageColumns) FROM damaged_items WHERE remote_id = ? AND uid = ?", remoteID, uid,
            map: Self.damagedItem)
    }

    public func recordDamage(remoteID: Int64, uid: String, hash: String, remoteHash: String, damage: String) throws {
        try db.run(
            """
            INSERT OR REPLACE INTO damaged_items (remote_id, uid, hash, remote_hash, damage, damaged_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, remoteID, uid, hash, remoteHash, damage, now())
    }

    public func clearDamage(remoteID: Int64, uid: String) throws {
        try db.run("DELETE FROM damaged_items WHERE remote_id = ? AND uid = ?", remoteID, uid)
    }

    /// The latest damaged items of one remote, newest first.
    public func damagedItems(remoteID: Int64, limit: Int = ContactStore.chunkLimit) throws -> [DamagedItem] {
        try Self.checkLimit(limit)
        return try db.query(
            """
            SELECT \(Self.damageColumns) FROM damaged_items WHERE remote_id = ? ORDER BY damaged_at DESC, uid LIMIT ?
            """, remoteID, limit, map: Self.damagedItem)
    }

    private static let damageColumns = "uid, hash, remote_hash, damage, damaged_at"

    private static func damagedItem(_ row: Row) throws -> DamagedItem {
        DamagedItem(
            uid: try row.string(0), hash: try row.string(1), remoteHash: try row.string(2), damage: try row.string(3),
            damagedAt: try row.int64(4))
    }
}

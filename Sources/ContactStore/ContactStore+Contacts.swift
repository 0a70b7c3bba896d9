import SQLite
import VCard

// Writing and reading contacts one UID at a time. Every overwrite or delete first copies the old version into
// history, and every change takes the next change sequence number, in the same transaction.
extension ContactStore {
    /// Stores `card` under its UID: inserts it, overwrites the live version (copied to history with `reason`), or
    /// revives a tombstone. Returns false, writing nothing, when the live version is already byte-identical, so that
    /// a sync that re-downloads a contact does not make a local change that would travel back.
    @discardableResult
    public func upsert(_ card: Card, hash: String? = nil, reason: String, remoteID: Int64? = nil) throws -> Bool {
        guard let uid = card.uid, !uid.isEmpty else {
            throw ContactStoreError(.missingUID, "cannot store a card without a UID (\(card.displayName))")
        }
        let vcard = card.serialized()
        let hash = hash ?? card.contentHash  // the caller may have it already: hashing is not free
        return try db.transaction {
            let time = now()
            guard let existing = try contact(uid: uid) else {
                try insertContact(card, uid: uid, vcard: vcard, hash: hash, at: time)
                return true
            }
            if !existing.deleted {
                if existing.vcard == vcard {
                    return false
                }
                try recordHistory(existing, reason: reason, remoteID: remoteID, at: time)
            }
            // A tombstone's last version went to history when it was deleted.
            try replaceContact(id: existing.id, with: card, vcard: vcard, hash: hash, at: time)
            return true
        }
    }

    /// Turns the live contact `uid` into a tombstone, copying its last version to history with `reason`. Returns
    /// false when there is no live contact with that UID (already deleted, or never known).
    @discardableResult
    public func delete(uid: String, reason: String, remoteID: Int64? = nil) throws -> Bool {
        try db.transaction {
            guard let existing = try contact(uid: uid), !existing.deleted else {
                return false
            }
            let time = now()
            try recordHistory(existing, reason: reason, remoteID: remoteID, at: time)
            // The tombstone keeps the last vcard and hash: the columns are NOT NULL, the check walks them, and a
            // sync can still tell which version was deleted.
            try db.run(
                "UPDATE contacts SET deleted = 1, changed_at = ?, change_seq = ? WHERE id = ?", time,
                try nextChangeSeq(), existing.id)
            return true
        }
    }

    /// The contact with this UID, live or tombstone.
    public func contact(uid: String) throws -> StoredContact? {
        try db.queryFirst("SELECT \(Self.contactColumns) FROM contacts WHERE uid = ?", uid, map: Self.storedContact)
    }

    /// The replaced versions of `uid`, newest first, at most `limit`.
    public func history(uid: String, limit: Int = ContactStore.chunkLimit) throws -> [HistoryEntry] {
        try Self.checkLimit(limit)
        return try db.query(
            """
            SELECT id, uid, vcard, hash, reason, recorded_at, remote_id FROM history WHERE uid = ?
            ORDER BY id DESC LIMIT ?
            """, uid, limit
        ) { row in
            HistoryEntry(
                id: try row.int64(0), uid: try row.string(1), vcard: try row.string(2), hash: try row.string(3),
                reason: try row.string(4), recordedAt: try row.int64(5), remoteID: try row.optionalInt64(6))
        }
    }

    // MARK: Row writers shared with import

    func insertContact(_ card: Card, uid: String, vcard: String, hash: String, at time: Int64) throws {
        try db.run(
            """
            INSERT INTO contacts (uid, vcard, hash, display_name, created_at, changed_at, change_seq, deleted)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0)
            """, uid, vcard, hash, card.displayName, time, time, try nextChangeSeq())
    }

    /// New content for an existing row (live or tombstone); the row keeps its id, UID and creation time.
    func replaceContact(id: Int64, with card: Card, vcard: String, hash: String, at time: Int64) throws {
        try db.run(
            """
            UPDATE contacts SET vcard = ?, hash = ?, display_name = ?, changed_at = ?, change_seq = ?, deleted = 0
            WHERE id = ?
            """, vcard, hash, card.displayName, time, try nextChangeSeq(), id)
    }

    func recordHistory(_ contact: StoredContact, reason: String, remoteID: Int64?, at time: Int64) throws {
        try recordHistory(
            uid: contact.uid, vcard: contact.vcard, hash: contact.hash, reason: reason, remoteID: remoteID, at: time)
    }

    func recordHistory(
        uid: String, vcard: String, hash: String, reason: String, remoteID: Int64?, at time: Int64
    ) throws {
        try db.run(
            "INSERT INTO history (uid, vcard, hash, reason, recorded_at, remote_id) VALUES (?, ?, ?, ?, ?, ?)", uid,
            vcard, hash, reason, time, remoteID)
    }
}

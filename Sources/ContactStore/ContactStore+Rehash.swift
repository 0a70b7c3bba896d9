import SQLite
import VCard

// A store written by an older ContactBox holds hashes of the content hash's earlier reading (schema 7 reads a 4.0
// card in its 3.0 form, Docs/vcard.md). They are worked out anew once, a chunk of contacts per transaction, so that
// `check` finds them right and no contact looks changed to a sync: a remote's base and a refusal or damage record
// that held a contact's old hash take its new one with it. History keeps its rows as they are: a restore works out
// the hash of the version it brings back (`ContactStore+Restore.swift`).
extension ContactStore {
    /// The contact id up to which hashes are renewed, or nil when none wait (`rehash_pending`).
    func rehashPendingAfter() throws -> Int64? {
        try db.scalarInt64("SELECT next_id FROM rehash_pending WHERE id = 1")
    }

    func rehashIfPending() throws {
        while let after = try rehashPendingAfter() {
            try transaction {
                let chunk = try db.query(
                    "SELECT \(Self.contactColumns) FROM contacts WHERE id > ? ORDER BY id LIMIT ?", after,
                    Self.chunkLimit, map: storedContact)
                for contact in chunk {
                    let hash = Card.stored(contact.text, uid: contact.uid).contentHash
                    guard hash != contact.hash else { continue }
                    try db.run("UPDATE contacts SET hash = ? WHERE id = ?", hash, contact.id)
                    for table in ["remote_items", "refused_items", "damaged_items"] {
                        try db.run(
                            """
                            UPDATE \(table) SET hash = ?1
                            WHERE remote_id IN (SELECT id FROM remotes) AND uid = ?2 AND hash = ?3
                            """, hash, contact.uid, contact.hash)
                    }
                }
                if let last = chunk.last {
                    try db.run("UPDATE rehash_pending SET next_id = ? WHERE id = 1", last.id)
                } else {
                    try db.run("DELETE FROM rehash_pending")
                }
            }
        }
    }
}

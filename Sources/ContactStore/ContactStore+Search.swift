import SQLite
import VCard

// A store written before schema 10 has no list lines (`ListLine`) and no trigram index of its search keys, and one
// before schema 9 no search keys (`SearchKey`). They are worked out once, a chunk of contacts per transaction, by
// the first open that may write, as the hashes of schema 7 are (`ContactStore+Rehash.swift`): an interrupted fill-in
// goes on where it stopped at the next open. Every write of a contact since keeps them (the index: its triggers).
extension ContactStore {
    /// The contact id up to which search keys are filled in, or nil when none wait (`search_pending`).
    func searchKeysPendingAfter() throws -> Int64? {
        try db.scalarInt64("SELECT next_id FROM search_pending WHERE id = 1")
    }

    func fillSearchKeysIfPending() throws {
        while let after = try searchKeysPendingAfter() {
            try transaction {
                let ids = try db.query(
                    "SELECT id FROM contacts WHERE id > ? ORDER BY id LIMIT ?", after, Self.chunkLimit
                ) { try $0.int64(0) }
                // One card at a time: a chunk of cards with photos is megabytes.
                for id in ids {
                    guard
                        let contact = try db.queryFirst(
                            "SELECT \(Self.contactColumns) FROM contacts WHERE id = ? AND deleted = 0", id,
                            map: storedContact)
                    else { continue }
                    let card = Card.stored(contact.text, uid: contact.uid)
                    let key = SearchKey(card: card, displayName: contact.displayName)
                    let line = ListLine(card: card)
                    try db.run(
                        """
                        UPDATE contacts SET search_text = ?, search_phones = ?, list_phone = ?, list_email = ?,
                            list_photo = ?
                        WHERE id = ?
                        """, key.text, key.phones, line.phone, line.email, line.hasPhoto, id)
                }
                if let last = ids.last {
                    try db.run("UPDATE search_pending SET next_id = ? WHERE id = 1", last)
                } else {
                    try db.run("DELETE FROM search_pending")
                }
            }
        }
    }
}

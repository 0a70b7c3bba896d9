import SQLite
import VCard

// Writing and reading contacts one UID at a time. Every overwrite or delete first copies the old version into
// history, and every change takes the next change sequence number, in the same transaction.
extension ContactStore {
    /// Stores `card` under its UID: inserts it, overwrites the live version (copied to history with `reason`), or
    /// revives a tombstone (a `created` row in history). Returns false, writing nothing, when the live version is
    /// already byte-identical, so that a sync that re-downloads a contact does not make a local change that would
    /// travel back. `runID` ties the change to its sync run or local operation. `stampingRevision`, for a change
    /// made on the box (an edit): the card's `REV` becomes the time of the change where its content changed, so
    /// that `conflict = "newest"` weighs the edit by when it was made.
    @discardableResult
    public func upsert(
        _ card: Card, hash: String? = nil, reason: String, remoteID: Int64? = nil, runID: Int64? = nil,
        stampingRevision: Bool = false
    ) throws -> Bool {
        guard let uid = card.uid, !uid.isEmpty else {
            throw ContactStoreError(.missingUID, "cannot store a card without a UID (\(card.displayName))")
        }
        let hash = hash ?? card.contentHash  // the caller may have it already: hashing is not free
        return try db.transaction {
            let existing = try storedRow(uid: uid)
            let time = try stamp()
            var card = card
            if stampingRevision, existing.map({ $0.deleted || $0.hash != hash }) ?? true {
                card = revised(card, at: time)
            }
            let text = card.serializedText()
            if let existing, !existing.deleted, try hasText(existing, text, hash: hash) {
                return false
            }
            try write(
                card, uid: uid, text: text, hash: hash, over: existing,
                origin: HistoryOrigin(reason: reason, remoteID: remoteID, runID: runID), at: time)
            return true
        }
    }

    /// Turns the live contact `uid` into a tombstone, copying its last version to history with `reason`. Returns
    /// false when there is no live contact with that UID (already deleted, or never known).
    @discardableResult
    public func delete(uid: String, reason: String, remoteID: Int64? = nil, runID: Int64? = nil) throws -> Bool {
        try db.transaction {
            guard let existing = try storedRow(uid: uid), !existing.deleted else {
                return false
            }
            try tombstone(
                existing, origin: HistoryOrigin(reason: reason, remoteID: remoteID, runID: runID), at: try stamp())
            return true
        }
    }

    /// The contact with this UID, live or tombstone.
    public func contact(uid: String) throws -> StoredContact? {
        try db.queryFirst("SELECT \(Self.contactColumns) FROM contacts WHERE uid = ?", uid, map: storedContact)
    }

    /// The contact with this UID as a writer needs it: a large text is left where it is, to be copied or compared
    /// there (`hasText`, `recordHistory`), not read.
    func storedRow(uid: String) throws -> StoredContact? {
        try db.queryFirst("SELECT \(Self.contactColumns) FROM contacts WHERE uid = ?", uid) { row in
            try storedContact(row, readingText: false)
        }
    }

    // MARK: Row writers shared with import

    func insertContact(_ card: Card, uid: String, text: CardText, hash: String, at time: Int64) throws {
        let stored = try storeText(text)
        let name = card.displayName
        let key = SearchKey(card: card, displayName: name)
        let line = ListLine(card: card)
        try db.run(
            """
            INSERT INTO contacts (uid, vcard, hash, display_name, created_at, changed_at, change_seq, deleted, text_id,
                search_text, search_phones, list_phone, list_email, list_photo)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
            """, uid, stored.vcard, hash, name, time, time, try nextChangeSeq(), stored.textID, key.text, key.phones,
            line.phone, line.email, line.hasPhoto)
    }

    /// New content for an existing row (live or tombstone); the row keeps its id, UID and creation time. A large
    /// text it had goes with the new `text_id` (the trigger `contacts_text_replaced`). Its search keys are the new
    /// card's.
    func replaceContact(id: Int64, with card: Card, text: CardText, hash: String, at time: Int64) throws {
        let stored = try storeText(text)
        let name = card.displayName
        let key = SearchKey(card: card, displayName: name)
        let line = ListLine(card: card)
        try db.run(
            """
            UPDATE contacts SET vcard = ?, hash = ?, display_name = ?, changed_at = ?, change_seq = ?, deleted = 0,
                text_id = ?, search_text = ?, search_phones = ?, list_phone = ?, list_email = ?, list_photo = ?
            WHERE id = ?
            """, stored.vcard, hash, name, time, try nextChangeSeq(), stored.textID, key.text, key.phones, line.phone,
            line.email, line.hasPhoto, id)
    }

    /// Writes `card` as the version of `uid`, over `existing` (nil: a new UID), recording the change in history
    /// first: `created` when the UID was not live, else the replaced version as `updated`.
    func write(
        _ card: Card, uid: String, text: CardText, hash: String, over existing: StoredContact?, origin: HistoryOrigin,
        at time: Int64
    ) throws {
        guard let existing else {
            try recordHistory(uid: uid, text: .bytes([]), hash: "", kind: .created, origin: origin, at: time)
            try insertContact(card, uid: uid, text: text, hash: hash, at: time)
            return
        }
        if existing.deleted {
            // The tombstone's last version went to history when it was deleted.
            try recordHistory(uid: uid, text: .bytes([]), hash: "", kind: .created, origin: origin, at: time)
        } else {
            try recordHistory(existing, kind: .updated, origin: origin, at: time)
        }
        try replaceContact(id: existing.id, with: card, text: text, hash: hash, at: time)
    }

    /// Turns the live `existing` into a tombstone, its last version to history as `deleted`.
    func tombstone(_ existing: StoredContact, origin: HistoryOrigin, at time: Int64) throws {
        try recordHistory(existing, kind: .deleted, origin: origin, at: time)
        // The tombstone keeps the last vcard and hash: the columns are NOT NULL, the check walks them, and a sync
        // can still tell which version was deleted. A search never looks at a tombstone: its keys and line go. Its changed_at
        // is the time of its `deleted` history row, which the trash orders by (`ContactStore+Trash.swift`).
        try db.run(
            """
            UPDATE contacts SET deleted = 1, changed_at = ?, change_seq = ?, search_text = NULL, search_phones = NULL,
                list_phone = NULL, list_email = NULL, list_photo = NULL
            WHERE id = ?
            """, time, try nextChangeSeq(), existing.id)
    }

    /// Copies `contact`'s version to history: a large text at its place, in pieces (`copyText`).
    func recordHistory(_ contact: StoredContact, kind: HistoryKind, origin: HistoryOrigin, at time: Int64) throws {
        let stored = try contact.largeText.map { (vcard: SQLValue.utf8Text([]), textID: try copyText(at: $0)) }
        try recordHistory(
            uid: contact.uid, stored: stored ?? storeText(contact.text), hash: contact.hash, kind: kind,
            origin: origin, at: time)
    }

    func recordHistory(
        uid: String, text: CardText, hash: String, kind: HistoryKind, origin: HistoryOrigin, at time: Int64
    ) throws {
        try recordHistory(uid: uid, stored: storeText(text), hash: hash, kind: kind, origin: origin, at: time)
    }

    private func recordHistory(
        uid: String, stored: (vcard: SQLValue, textID: Int64?), hash: String, kind: HistoryKind,
        origin: HistoryOrigin, at time: Int64
    ) throws {
        try db.run(
            """
            INSERT INTO history (uid, vcard, hash, reason, recorded_at, remote_id, kind, run_id, text_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, uid, stored.vcard, hash, origin.reason, time, origin.remoteID, kind.rawValue, origin.runID,
            stored.textID)
    }
}

/// Why a change was made and by what: the columns every history row of one change shares.
struct HistoryOrigin {
    var reason: String
    var remoteID: Int64?
    var runID: Int64?
}

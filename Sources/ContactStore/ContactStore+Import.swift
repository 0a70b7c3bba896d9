import SQLite
import VCard

// Importing a .vcf file, one chunk of cards per transaction. Import never overwrites: an exact duplicate is merged
// into what is stored, and a card whose UID is taken by different content is kept next to it under a fresh UID.
extension ContactStore {
    /// Imports up to `chunkLimit` cards in one transaction and says what happened to each, in order. With
    /// `updating`, a card whose UID is taken by a different live contact replaces it (the old version goes to
    /// history) instead of being kept beside it: re-importing an edited export.
    public func importChunk(_ cards: [Card], updating: Bool = false, runID: Int64? = nil) throws -> [ImportOutcome] {
        guard cards.count <= Self.chunkLimit else {
            throw ContactStoreError(
                .chunkTooLarge, "\(cards.count) cards in one import chunk; at most \(Self.chunkLimit) per transaction")
        }
        return try db.transaction {
            let time = try stamp()
            var outcomes: [ImportOutcome] = []
            outcomes.reserveCapacity(cards.count)
            for card in cards {
                outcomes.append(try importCard(card, updating: updating, runID: runID, at: time))
            }
            return outcomes
        }
    }

    private func importCard(_ incoming: Card, updating: Bool, runID: Int64?, at time: Int64) throws -> ImportOutcome {
        let origin = HistoryOrigin(reason: updating ? "replaced by import" : "imported", remoteID: nil, runID: runID)
        // The hash ignores UID, PRODID and REV: the same person exported twice is the same contact.
        let hash = incoming.contentHash
        // contacts_live_hash holds the hash's first 16 digits. `+hash`: an equality on the column itself would be
        // propagated into `substr(hash, ...)`, which then no longer matches the index (a scan of every contact).
        if let existingUID = try db.scalarString(
            """
            SELECT uid FROM contacts WHERE substr(hash, 1, 16) = substr(?1, 1, 16) AND +hash = ?1 AND deleted = 0
            ORDER BY id LIMIT 1
            """, hash)
        {
            return .merged(existingUID: existingUID)
        }
        var card = incoming
        guard let uid = card.uid, !uid.isEmpty else {
            // Identity is the UID, so a card without one gets one, written into the stored vCard.
            let fresh = Card.makeUID()
            card.setUID(fresh)
            try write(card, uid: fresh, text: card.serializedText(), hash: hash, over: nil, origin: origin, at: time)
            return .inserted(fresh)
        }
        let existing = try storedRow(uid: uid)
        guard let existing, !existing.deleted else {
            try write(
                card, uid: uid, text: card.serializedText(), hash: hash, over: existing, origin: origin, at: time)
            return .inserted(uid)
        }
        if updating {
            // A change made on the box: dated now, whatever REV the edited export kept.
            card = revised(card, at: time)
            try write(
                card, uid: uid, text: card.serializedText(), hash: hash, over: existing, origin: origin, at: time)
            return .updated(uid)
        }
        // Same UID, different content: two contacts claim one identity. Keep both; the newcomer moves to a fresh
        // UID, and its version as it arrived goes to history so the rename can be traced and undone.
        let fresh = Card.makeUID()
        try recordHistory(
            uid: fresh, text: card.serializedText(), hash: hash, kind: .archived,
            origin: HistoryOrigin(reason: "import-duplicate-uid", remoteID: nil, runID: runID), at: time)
        card.setUID(fresh)
        try write(card, uid: fresh, text: card.serializedText(), hash: hash, over: nil, origin: origin, at: time)
        return .renamed(from: uid, to: fresh)
    }
}

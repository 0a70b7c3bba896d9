import SQLite
import VCard

// `contactbox check`: SQLite's own integrity checks, then the store's invariants, walked in chunks.
extension ContactStore {
    /// The most findings reported; a badly damaged store would otherwise produce one line per row.
    public static let checkFindingLimit = 1_000

    /// Checks the database and the store's invariants; returns one finding per problem (empty when healthy).
    public func check() throws -> [String] {
        var findings = Findings(limit: Self.checkFindingLimit)
        // > If the integrity_check pragma finds no problems, then the single string "ok" is returned.
        try db.forEachRow("PRAGMA integrity_check") { row in
            let line = try row.string(0)
            if line != "ok" {
                findings.add("integrity: \(line)")
            }
        }
        try db.forEachRow("PRAGMA foreign_key_check") { row in
            let table = try row.string(0)
            let rowID = try row.optionalInt64(1).map(String.init) ?? "?"
            findings.add("foreign key: \(table) row \(rowID) refers to a missing \(try row.string(2))")
        }
        try checkUniqueness(&findings)
        try checkTexts(&findings)
        try checkSearchIndex(&findings)
        try checkContacts(&findings)
        return findings.lines
    }

    /// One row per UID and one per change_seq. The UNIQUE indexes guarantee both unless the file was edited or the
    /// indexes are damaged, which is exactly when a check runs; the GROUP BY returns only the offenders.
    private func checkUniqueness(_ findings: inout Findings) throws {
        try db.forEachRow("SELECT uid, count(*) FROM contacts GROUP BY uid HAVING count(*) > 1 LIMIT 100") { row in
            findings.add("uid \(try row.string(0)): \(try row.int64(1)) rows for one UID")
        }
        try db.forEachRow(
            "SELECT change_seq, count(*), min(uid) FROM contacts GROUP BY change_seq HAVING count(*) > 1 LIMIT 100"
        ) { row in
            findings.add(
                "uid \(try row.string(2)): change_seq \(try row.int64(0)) is shared by \(try row.int64(1)) rows")
        }
    }

    /// Every text in `texts` belongs to one row (`Schema.version8`): one no row refers to is lost space.
    private func checkTexts(_ findings: inout Findings) throws {
        try db.forEachRow(
            // One pass over each table (text_id has no index: only the check looks rows up by it).
            """
            SELECT id FROM texts EXCEPT SELECT text_id FROM contacts WHERE text_id IS NOT NULL
            EXCEPT SELECT text_id FROM history WHERE text_id IS NOT NULL LIMIT 100
            """
        ) { row in findings.add("texts row \(try row.int64(0)) belongs to no contact or history row") }
    }

    /// The trigram index holds each live contact's keys and name, once, as its row has them (`Schema.version10`):
    /// a search for a rare word finds contacts by this index alone. Its own check first (FTS5's integrity-check,
    /// which SQLite 3.40 runs as a write: not on a store opened only to read).
    private func checkSearchIndex(_ findings: inout Findings) throws {
        if !isReadOnly {
            do {
                try db.execute("INSERT INTO contacts_search (contacts_search, rank) VALUES ('integrity-check', 0)")
            } catch {
                findings.add("search index: \(error)")
                return
            }
        }
        guard try searchKeysPendingAfter() == nil else { return }
        // One pass over each side, ordered by id; the rows that differ, a hundred at most.
        try db.forEachRow(
            """
            SELECT id FROM (
                SELECT id, search_text, search_phones, display_name FROM contacts
                WHERE deleted = 0 AND search_text IS NOT NULL
                EXCEPT SELECT rowid, words, digits, name FROM contacts_search
            )
            UNION ALL
            SELECT rowid FROM (
                SELECT rowid, words, digits, name FROM contacts_search
                EXCEPT SELECT id, search_text, search_phones, display_name FROM contacts
                WHERE deleted = 0 AND search_text IS NOT NULL
            )
            LIMIT 100
            """
        ) { row in
            findings.add("contact row \(try row.int64(0)): its search keys in the trigram index are not its row's")
        }
    }

    /// Re-reads every stored vCard, one keyset chunk at a time.
    private func checkContacts(_ findings: inout Findings) throws {
        let counter = try currentChangeSeq()
        // Hashes of an older reading still waiting to be renewed are not findings (`ContactStore+Rehash.swift`).
        let renewedUpTo = try rehashPendingAfter() ?? Int64.max
        // Nor are search keys a fill-in has not reached yet (`ContactStore+Search.swift`).
        let keyedUpTo = try searchKeysPendingAfter() ?? Int64.max
        var lastID: Int64 = 0
        while !findings.isFull {
            let chunk = try db.query(
                """
                SELECT \(Self.contactColumns), search_text, search_phones, list_phone, list_email, list_photo
                FROM contacts WHERE id > ? ORDER BY id LIMIT ?
                """, lastID, Self.chunkLimit
            ) { row in
                let column = Self.contactColumnCount
                let key = try row.optionalString(column).map { text in
                    SearchKey(text: text, phones: try row.optionalString(column + 1) ?? "")
                }
                let line = try row.optionalInt64(column + 4).map { photo in
                    ListLine(
                        phone: try row.optionalString(column + 2), email: try row.optionalString(column + 3),
                        hasPhoto: photo != 0)
                }
                return (contact: try storedContact(row, readingText: false), key: StoredKeys(search: key, line: line))
            }
            guard let last = chunk.last else {
                break
            }
            lastID = last.contact.id
            for (var contact, key) in chunk {
                // A large text is read here, one at a time, so that a missing one is a finding, not a failed check.
                if let place = contact.largeText {
                    do {
                        contact.text = try readText(at: place)
                    } catch {
                        findings.add(
                            "uid \(contact.uid): its text (\(place.table) row \(place.rowID)) cannot be read: \(error)")
                        continue
                    }
                }
                checkContact(
                    contact, counter: counter, hashRenewed: contact.id <= renewedUpTo,
                    key: contact.id <= keyedUpTo ? key : nil, into: &findings)
            }
        }
    }

    /// What a row keeps of its card for searches and lists (nil: none).
    private struct StoredKeys {
        var search: SearchKey?
        var line: ListLine?
    }

    /// `key`: the contact's stored keys, or nil when they are not to be checked.
    private func checkContact(
        _ contact: StoredContact, counter: Int64, hashRenewed: Bool, key: StoredKeys?, into findings: inout Findings
    ) {
        let uid = contact.uid
        if contact.changeSeq > counter {
            findings.add("uid \(uid): change_seq \(contact.changeSeq) is above the sequence counter \(counter)")
        }
        // The check is a person's command: a large card is read whole here (as `show` would).
        var reader = CardReader(bytes: contact.text.withBytes { Array($0) })
        let card: Card
        switch reader.next() {
        case .success(let parsed):
            card = parsed.card
        case .failure(let error):
            // An opaque item (kept as it is because no reader understands it) is stored with its own hash.
            if Card(opaque: contact.vcard, uid: uid).contentHash != contact.hash {
                findings.add("uid \(uid): stored vCard no longer parses: \(error)")
            }
            return
        case nil:
            findings.add("uid \(uid): stored vCard is empty")
            return
        }
        if reader.next() != nil {
            findings.add("uid \(uid): stored vCard holds more than one card")
        }
        let hash = card.contentHash
        if hash != contact.hash, hashRenewed {
            findings.add("uid \(uid): stored hash \(contact.hash) differs from the recomputed \(hash)")
        }
        if !contact.deleted && card.uid != uid {
            findings.add("uid \(uid): live contact's vCard has UID \(card.uid ?? "(none)")")
        }
        // A search finds a contact by its keys alone: keys that are not its card's hide it, or show it for another.
        if let key, key.search != (contact.deleted ? nil : SearchKey(card: card, displayName: contact.displayName)) {
            findings.add(
                "uid \(uid): its search keys are not its card's (a search may miss it or find it for another's words)")
        }
        if let key, key.line != (contact.deleted ? nil : ListLine(card: card)) {
            findings.add("uid \(uid): its line in the list (phone, email, photo) is not its card's")
        }
    }
}

/// Collected findings, capped so that a wrecked database cannot exhaust memory through its own report.
private struct Findings {
    let limit: Int
    private(set) var lines: [String] = []

    init(limit: Int) {
        self.limit = limit
    }

    var isFull: Bool { lines.count > limit }

    mutating func add(_ line: String) {
        if lines.count < limit {
            lines.append(line)
        } else if lines.count == limit {
            lines.append("more than \(limit) findings; stopped listing")
        }
    }
}

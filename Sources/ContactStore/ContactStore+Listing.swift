import SQLite

// Reading many contacts: always a keyset page of at most `chunkLimit` rows, never OFFSET, which would make every
// page re-read all the rows before it.
extension ContactStore {
    /// Live contacts ordered by display name (case-insensitive) then row id, starting after `cursor` (nil: from the
    /// start). Pass the last contact's `cursor` to get the next page; an empty page is the end. `search` keeps the
    /// contacts whose name, organisation or email contains it, ignoring case, or, when it is a phone number, whose
    /// phone numbers contain its digits (`SearchQuery` has the rule); empty or only whitespace, it keeps every one.
    public func contacts(
        after cursor: ContactCursor?, limit: Int = ContactStore.chunkLimit, search: String? = nil
    ) throws -> [StoredContact] {
        try contacts(after: cursor, limit: limit, search: search) { $0 }
    }

    /// The same page, each contact handed to `transform` as it is read and let go of then: a page of what is taken
    /// from the cards (a list's summaries, a download's bytes) holds one card at a time, whatever their photos.
    /// `isLast` ends the page early after a result (a download's chunk is full).
    public func contacts<T>(
        after cursor: ContactCursor?, limit: Int = ContactStore.chunkLimit, search: String? = nil,
        isLast: (T) -> Bool = { _ in false }, _ transform: (StoredContact) throws -> T
    ) throws -> [T] {
        try Self.checkLimit(limit)
        var (conditions, arguments) = try walkConditions(after: cursor, search: search.flatMap(SearchQuery.init))
        arguments.append(limit)
        // Only ten shapes of this SQL exist (a cursor or not; no search, or text or digits with a fill-in pending or
        // not), so the statement cache holds at most ten statements for it.
        let sql = """
            SELECT \(Self.contactColumns) FROM contacts WHERE \(conditions)
            ORDER BY display_name COLLATE NOCASE, id LIMIT ?
            """
        return try db.query(sql, arguments: arguments, map: { try transform(storedContact($0)) }, isLast: isLast)
    }

    /// The same page as ``contacts(after:limit:search:)`` as a list shows it, without the cards: read from the name
    /// index alone (its `ListLine` columns), or, for search words of three characters or more that at most
    /// `trigramLimit` contacts hold, through the trigram index `contacts_search`, so that a search for a word few
    /// contacts hold does not walk the whole name index.
    public func contactLines(
        after cursor: ContactCursor?, limit: Int = ContactStore.chunkLimit, search: String? = nil
    ) throws -> [ContactLine] {
        try Self.checkLimit(limit)
        let (sql, arguments) = try linesQuery(after: cursor, limit: limit, search: search.flatMap(SearchQuery.init))
        return try db.query(sql, arguments: arguments, map: Self.contactLine)
    }

    /// The SQL of ``contactLines(after:limit:search:)`` and its arguments: every column from the name index
    /// (EXPLAIN QUERY PLAN: USING COVERING INDEX contacts_live_name), never a row of `contacts`.
    func linesQuery(
        after cursor: ContactCursor?, limit: Int, search query: SearchQuery?
    ) throws -> (String, [(any SQLBindable)?]) {
        if let match = query?.trigramMatch, try searchKeysPendingAfter() == nil,
            try trigramMatches(match) <= Self.trigramLimit
        {
            var arguments: [(any SQLBindable)?] = [match]
            var after = ""
            if let cursor {
                after = """
                    AND contacts_search.name COLLATE NOCASE >= ?
                    AND (contacts_search.name COLLATE NOCASE > ? OR contacts_search.rowid > ?)
                    """
                arguments += [cursor.displayName, cursor.displayName, cursor.id]
            }
            // Each match's line from its entry in the name index, found by its name and id.
            let sql = """
                SELECT \(Self.lineColumns.map { "c." + $0 }.joined(separator: ", "))
                FROM contacts_search JOIN contacts c INDEXED BY contacts_live_name
                ON c.display_name = contacts_search.name COLLATE NOCASE AND c.id = contacts_search.rowid
                AND c.deleted = 0
                WHERE contacts_search MATCH ? \(after)
                ORDER BY contacts_search.name COLLATE NOCASE, contacts_search.rowid LIMIT ?
                """
            return (sql, arguments + [limit])
        }
        let (conditions, arguments) = try walkConditions(after: cursor, search: query)
        let sql = """
            SELECT \(Self.lineColumns.joined(separator: ", ")) FROM contacts INDEXED BY contacts_live_name
            WHERE \(conditions)
            ORDER BY display_name COLLATE NOCASE, id LIMIT ?
            """
        return (sql, arguments + [limit])
    }

    /// What `contactLine` reads: columns of `contacts_live_name`.
    private static let lineColumns = [
        "id", "uid", "display_name", "hash", "change_seq", "changed_at", "list_phone", "list_email", "list_photo",
    ]

    /// The most contacts a search takes through the trigram index. Ordering its matches by name costs a lookup in
    /// the name index each; walking the name index finds a page of a word that many hold within a few pages of the
    /// index (about 100 / the share of contacts that hold it), so past a few hundred matches the walk is cheaper.
    static let trigramLimit = 300

    /// How many contacts the trigram index finds for `match`, counted up to one more than `trigramLimit`.
    private func trigramMatches(_ match: String) throws -> Int {
        let count = try db.scalarInt64(
            "SELECT count(*) FROM (SELECT 1 FROM contacts_search WHERE contacts_search MATCH ? LIMIT ?)", match,
            Self.trigramLimit + 1)
        return Int(truncatingIfNeeded: count ?? 0)
    }

    private static func contactLine(_ row: Row) throws -> ContactLine {
        var line: ListLine?
        if let photo = try row.optionalInt64(8) {
            line = ListLine(phone: try row.optionalString(6), email: try row.optionalString(7), hasPhoto: photo != 0)
        }
        return ContactLine(
            id: try row.int64(0), uid: try row.string(1), displayName: try row.string(2), hash: try row.string(3),
            changeSeq: try row.int64(4), changedAt: try row.int64(5), line: line)
    }

    /// The WHERE clause of a page in name order from the name index (live contacts after `cursor` that `query`
    /// matches), and its arguments.
    private func walkConditions(
        after cursor: ContactCursor?, search query: SearchQuery?
    ) throws -> (String, [(any SQLBindable)?]) {
        var conditions = ["deleted = 0"]
        var arguments: [(any SQLBindable)?] = []
        if let cursor {
            // Means (name, id) > (cursor name, cursor id). Spelled out because SQLite 3.40 scans the whole index for
            // the row value form `(display_name COLLATE NOCASE, id) > (?, ?)`, while the leading `>=` lets it seek
            // (EXPLAIN QUERY PLAN: SEARCH contacts USING INDEX contacts_live_name).
            conditions.append(
                "display_name COLLATE NOCASE >= ? AND (display_name COLLATE NOCASE > ? OR id > ?)")
            arguments += [cursor.displayName, cursor.displayName, cursor.id]
        }
        if let query {
            // Only columns of contacts_live_name: SQLite tests them on the index entry and reads a contact's row
            // (its card) only when they match. `instr`, not LIKE: the keys are lower-cased already, and `%` and `_`
            // are plain characters.
            var match = "instr(search_text, ?) > 0"
            arguments.append(query.text)
            if let digits = query.digits {
                match += " OR instr(search_phones, ?) > 0"
                arguments.append(digits)
            }
            // A contact whose keys an interrupted fill-in has not reached yet (a store opened only to read) is still
            // found by its name. Only then: the test costs every contact walked past.
            if try searchKeysPendingAfter() != nil {
                match += " OR (search_text IS NULL AND display_name LIKE ? ESCAPE '\\')"
                arguments.append("%" + Self.escapeLike(query.text) + "%")
            }
            conditions.append("(\(match))")
        }
        return (conditions.joined(separator: " AND "), arguments)
    }

    /// Calls `body` with every live contact in name order, reading one page of at most `chunkLimit` at a time, so
    /// that memory does not grow with the size of the store.
    public func forEachContact(search: String? = nil, _ body: (StoredContact) throws -> Void) throws {
        var cursor: ContactCursor?
        while true {
            let page = try contacts(after: cursor, search: search)
            for contact in page { try body(contact) }
            guard page.count == Self.chunkLimit, let last = page.last else { return }
            cursor = last.cursor
        }
    }

    /// Every contact changed after `seq`, tombstones included, in change order. Start with 0 and pass the last
    /// `changeSeq` of each page to get the next one.
    public func changes(since seq: Int64, limit: Int = ContactStore.chunkLimit) throws -> [StoredContact] {
        try Self.checkLimit(limit)
        return try db.query(
            "SELECT \(Self.contactColumns) FROM contacts WHERE change_seq > ? ORDER BY change_seq LIMIT ?", seq, limit,
            map: storedContact)
    }

    /// One row of ``changeHeads(since:limit:)``: what changed, without its card.
    public struct ChangeHead: Sendable, Equatable {
        public var changeSeq: Int64
        public var uid: String
        public var deleted: Bool
        public var hash: String
    }

    /// The same rows as ``changes(since:limit:)``, without their cards: a changes feed reads no photo.
    public func changeHeads(since seq: Int64, limit: Int = ContactStore.chunkLimit) throws -> [ChangeHead] {
        try Self.checkLimit(limit)
        return try db.query(
            "SELECT change_seq, uid, deleted, hash FROM contacts WHERE change_seq > ? ORDER BY change_seq LIMIT ?", seq,
            limit
        ) { row in
            ChangeHead(
                changeSeq: try row.int64(0), uid: try row.string(1), deleted: try row.bool(2), hash: try row.string(3))
        }
    }

    /// The number of live contacts, or of all rows including tombstones.
    public func count(includingDeleted: Bool = false) throws -> Int {
        let sql =
            includingDeleted ? "SELECT count(*) FROM contacts" : "SELECT count(*) FROM contacts WHERE deleted = 0"
        return Int(truncatingIfNeeded: try db.scalarInt64(sql) ?? 0)
    }

    /// Makes `text` match itself literally in a LIKE pattern with `ESCAPE '\'`.
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            if character == "\\" || character == "%" || character == "_" {
                escaped.append("\\")
            }
            escaped.append(character)
        }
        return escaped
    }
}

import SQLite
import SystemSupport
import VCard

/// Where a large text is kept: a row of `texts` (schema 8), or the `vcard` column of a row written before it.
struct TextPlace: Sendable, Equatable {
    var table: String
    var column: String
    var rowID: Int64

    /// The place of the large text of row `rowID` of `table` (contacts or history), whose `text_id` is `textID`.
    init(table: String, rowID: Int64, textID: Int64?) {
        if let textID {
            (self.table, self.column, self.rowID) = ("texts", "text", textID)
        } else {
            (self.table, self.column, self.rowID) = (table, "vcard", rowID)
        }
    }
}

// Card texts in and out of the store. A text up to `CardText.spoolThreshold` is bound and read as a value, as it
// always was; a larger one (a photo of megabytes) goes to `texts` in pieces and comes back in a spool file, so that
// neither SQLite nor this process holds it whole (`Schema.version8`).
extension ContactStore {
    /// The text column of a SELECT from contacts or history (of `table`, or its alias): the text where it is
    /// small, NULL where it is large. A large text written since schema 8 is in `texts` (its `vcard` is empty);
    /// `length` counts the characters of a TEXT, reading it, which only rows written before (at most 2 MiB, the
    /// reader's limit then) can cost.
    static func smallText(of table: String) -> String {
        "CASE WHEN \(table).text_id IS NULL AND length(\(table).vcard) <= \(CardText.spoolThreshold)"
            + " THEN \(table).vcard END"
    }

    /// A row's text: as read where small, else read from `place` into a spool file in pieces; with `reading`
    /// false a large text is left unread (empty), for a writer that copies or compares it at its place.
    func rowText(_ row: Row, column: Int, place: TextPlace, reading: Bool) throws -> (CardText, TextPlace?) {
        if !(try row.isNull(column)) {
            // A TEXT value's bytes as stored, not checked as UTF-8 again on the way to a String.
            return (.bytes(try row.blob(column)), nil)
        }
        return (reading ? try readText(at: place) : .bytes([]), place)
    }

    func readText(at place: TextPlace) throws -> CardText {
        let file = try SpoolFile()
        try db.readBlob(table: place.table, column: place.column, rowID: place.rowID) { try file.append($0) }
        return .spooled(file)
    }

    /// What a row's `vcard` and `text_id` are for `text`: the text itself where small; else empty, and a new row of
    /// `texts`, a zeroblob of its length written in pieces.
    func storeText(_ text: CardText) throws -> (vcard: SQLValue, textID: Int64?) {
        guard text.count > CardText.spoolThreshold else {
            if case .bytes(let bytes) = text { return (.utf8Text(bytes), nil) }
            return (.utf8Text(text.withBytes { Array($0) }), nil)
        }
        try db.run("INSERT INTO texts (text) VALUES (zeroblob(?))", text.count)
        let id = db.lastInsertRowID
        try db.writeBlob(table: "texts", column: "text", rowID: id) { write in
            try text.forEachPiece(size: Database.blobPieceSize, write)
        }
        return (.utf8Text([]), id)
    }

    /// A copy of the large text at `place` in a new row of `texts`, made in pieces: its id.
    func copyText(at place: TextPlace) throws -> Int64 {
        let length = try db.blobLength(table: place.table, column: place.column, rowID: place.rowID)
        try db.run("INSERT INTO texts (text) VALUES (zeroblob(?))", length)
        let id = db.lastInsertRowID
        try db.copyBlob(table: place.table, column: place.column, rowID: place.rowID, to: ("texts", "text", id))
        return id
    }

    /// Whether `contact`'s text is `text`, byte for byte. A large one is compared at its place, a piece at a time,
    /// and only when its `hash` (if given) and length agree.
    func hasText(_ contact: StoredContact, _ text: CardText, hash: String? = nil) throws -> Bool {
        guard let place = contact.largeText else { return contact.text.hasSameBytes(as: text) }
        if let hash, hash != contact.hash { return false }
        guard try db.blobLength(table: place.table, column: place.column, rowID: place.rowID) == text.count else {
            return false
        }
        var same = true
        var offset = 0
        try db.readBlob(table: place.table, column: place.column, rowID: place.rowID) { piece in
            same = same && piece.elementsEqual(text.bytes(at: offset, count: piece.count))
            offset += piece.count
        }
        return same
    }
}

extension CardText {
    func hasSameBytes(as other: CardText) -> Bool {
        count == other.count && withBytes { mine in other.withBytes { mine.elementsEqual($0) } }
    }
}

/// A CardText compared by its bytes, so that the store's value types stay Equatable.
struct ComparedText: Sendable, Equatable {
    var text: CardText

    static func == (lhs: ComparedText, rhs: ComparedText) -> Bool { lhs.text.hasSameBytes(as: rhs.text) }
}

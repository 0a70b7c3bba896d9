import SQLite
import TestSupport
import Testing
import VCard

@testable import ContactStore

@Suite("Searching by name, organisation, email and phone number")
struct SearchTests {
    /// The display names of every contact `search` finds, paging by cursor with pages of `limit`; the lines of a
    /// list (`contactLines`: through the trigram index for three characters or more) find the same, in order.
    func found(_ store: ContactStore, _ search: String, limit: Int = 100) throws -> [String] {
        var names: [String] = []
        var cursor: ContactCursor?
        while case let page = try store.contacts(after: cursor, limit: limit, search: search), let last = page.last {
            #expect(page.count <= limit)
            names += page.map(\.displayName)
            cursor = last.cursor
        }
        #expect(try lines(store, search, limit: limit).map(\.displayName) == names, "\(search)")
        return names
    }

    func lines(_ store: ContactStore, _ search: String?, limit: Int = 100) throws -> [ContactLine] {
        var lines: [ContactLine] = []
        var cursor: ContactCursor?
        while case let page = try store.contactLines(after: cursor, limit: limit, search: search), let last = page.last
        {
            #expect(page.count <= limit)
            lines += page
            cursor = last.cursor
        }
        return lines
    }

    /// A store with a few people whose name, organisation, email and phone numbers differ.
    func people() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.store.upsert(
            try makeCard(
                uid: "ada", name: "Ada Lovelace", email: "ada@analytical.example",
                extraLines: ["ORG:Analytical Engines Ltd;Research", "TEL;TYPE=cell:+49 (30) 123-45"]),
            reason: "test")
        try fixture.store.upsert(
            try makeCard(
                uid: "jorg", name: "Jörg Äbersold", email: "J.Aebersold@Example.ORG",
                extraLines: ["ORG:Weber & Söhne", "TEL:tel:+41-44-987-65-43", "TEL;TYPE=work:030 555 12"]),
            reason: "test")
        try fixture.store.upsert(
            try makeCard(uid: "grace", name: "Grace Hopper", extraLines: ["TEL:0176 99 88 77"]), reason: "test")
        return fixture
    }

    @Test("the organisation, any of its components, is found ignoring case")
    func byOrganisation() throws {
        let fixture = try people()
        #expect(try found(fixture.store, "analytical engines") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "RESEARCH") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "weber & s") == ["Jörg Äbersold"])
        // Unicode lower-casing: Ö finds ö.
        #expect(try found(fixture.store, "SÖHNE") == ["Jörg Äbersold"])
    }

    @Test("an email is found by any part of it, ignoring case")
    func byEmail() throws {
        let fixture = try people()
        #expect(try found(fixture.store, "j.aebersold@example.org") == ["Jörg Äbersold"])
        #expect(try found(fixture.store, "@ANALYTICAL") == ["Ada Lovelace"])
        #expect(try found(fixture.store, ".example") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "hopper@") == [])
    }

    @Test("names are found ignoring case, ASCII or not, with surrounding spaces trimmed")
    func byName() throws {
        let fixture = try people()
        #expect(try found(fixture.store, "LOVELACE") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "  grace hop ") == ["Grace Hopper"])
        #expect(try found(fixture.store, "äBERSOLD") == ["Jörg Äbersold"])
        #expect(try found(fixture.store, "jÖrg") == ["Jörg Äbersold"])
        // "a" is in every name here: all three, in name order.
        #expect(try found(fixture.store, "A") == ["Ada Lovelace", "Grace Hopper", "Jörg Äbersold"])
        #expect(try found(fixture.store, "   ").count == 3)
    }

    @Test("a phone number is found by its digits, whatever the spaces, dashes, brackets and + around them")
    func byPhoneDigits() throws {
        let fixture = try people()
        // Ada's +49 (30) 123-45 is 493012345.
        #expect(try found(fixture.store, "3012345") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "30 123-45") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "+49 30 12345") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "(030) 123.45") == ["Ada Lovelace"])
        // The trunk prefix 0 and the international 00 are dropped: the number is found as written at home.
        #expect(try found(fixture.store, "030 12345") == ["Ada Lovelace"])
        #expect(try found(fixture.store, "0049/30/12345") == ["Ada Lovelace"])
        // Jörg's tel: URI and his second number are found; Grace's 0176 99 88 77 by any run of its digits.
        #expect(try found(fixture.store, "+41 44 987") == ["Jörg Äbersold"])
        #expect(try found(fixture.store, "55512") == ["Jörg Äbersold"])
        #expect(try found(fixture.store, "998877") == ["Grace Hopper"])
        #expect(try found(fixture.store, "176-99") == ["Grace Hopper"])
        // Digits never run from one number into the next (Jörg's ...6543 and 03055512).
        #expect(try found(fixture.store, "6543030") == [])
        // Digits not in that order in any number.
        #expect(try found(fixture.store, "4930123456") == [])
        #expect(try found(fixture.store, "12354") == [])
    }

    @Test("fewer than three digits, or digits among letters, are searched as text only")
    func shortOrMixedDigits() throws {
        let fixture = try StoreFixture()
        try fixture.store.upsert(
            try makeCard(uid: "a", name: "Agent 007", extraLines: ["TEL:+1 700 123"]), reason: "test")
        try fixture.store.upsert(try makeCard(uid: "b", name: "Room 12b", extraLines: ["TEL:512 999"]), reason: "test")
        // "12" is too short for a phone search: it finds the name only (Room 12b), not the numbers holding 12.
        #expect(try found(fixture.store, "12") == ["Room 12b"])
        // "007": a phone search for 7 after its zeros would be one digit, so text only.
        #expect(try found(fixture.store, "007") == ["Agent 007"])
        // Three digits: the number 512 999 holds 999, and the text search finds nothing else.
        #expect(try found(fixture.store, "999") == ["Room 12b"])
        // Digits with a letter are text, though the number holds 700123.
        #expect(try found(fixture.store, "700123x") == [])
        // Three digits of +1 700 123.
        #expect(try found(fixture.store, "700") == ["Agent 007"])
    }

    @Test("paging through the results of a search by cursor misses none and repeats none")
    func pagingThroughResults() throws {
        let fixture = try StoreFixture()
        // 300 contacts, many with equal names, every third of them at the organisation searched for.
        let names = ["ann", "Ann", "bob", "BOB", "Carla", "dave", "Eve", "eve", "Zoë", "ANN", "Ünal", "ülla"]
        var start = 0
        while start < 300 {
            let cards = try (start..<min(start + 100, 300)).map { index in
                try makeCard(
                    uid: "u\(index)", name: names[index % names.count],
                    extraLines: index % 3 == 0 ? ["ORG:Needle Works \(index)"] : ["ORG:Haystack \(index)"])
            }
            _ = try fixture.store.importChunk(cards)
            start += 100
        }
        let expected = Set((0..<300).filter { $0 % 3 == 0 }.map { "u\($0)" })
        for limit in [1, 7, 100] {
            var uids: [String] = []
            var listed: [StoredContact] = []
            var cursor: ContactCursor?
            while case let page = try fixture.store.contacts(after: cursor, limit: limit, search: "needle"),
                let last = page.last
            {
                #expect(page.count <= limit)
                uids += page.map(\.uid)
                listed += page
                cursor = last.cursor
            }
            #expect(uids.count == expected.count)
            #expect(Set(uids) == expected)
            // In name order as SQLite's NOCASE has it (ASCII letters folded), then by row id.
            for (previous, next) in zip(listed, listed.dropFirst()) {
                let (a, b) = (asciiLowercased(previous.displayName), asciiLowercased(next.displayName))
                #expect(a.lexicographicallyPrecedes(b) || (a == b && previous.id < next.id))
            }
        }
        // 29, 290, 292, 293, 295, 296, 298 and 299: the others are multiples of 3.
        #expect(try found(fixture.store, "haystack 29").count == 8)
    }

    @Test("the keys follow every write: an update, a delete, a revival, a restore and an undo")
    func keysFollowWrites() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(
            try makeCard(uid: "u", name: "Ann", extraLines: ["ORG:Old Firm", "TEL:111 222"]), reason: "test")
        #expect(try found(store, "old firm") == ["Ann"])
        #expect(try found(store, "111222") == ["Ann"])

        try store.upsert(
            try makeCard(uid: "u", name: "Ann", extraLines: ["ORG:New Firm", "TEL:333 444"]), reason: "test")
        #expect(try found(store, "old firm") == [])
        #expect(try found(store, "111222") == [])
        #expect(try found(store, "new firm") == ["Ann"])
        #expect(try found(store, "333444") == ["Ann"])

        // Restore the first version: its keys come back with it.
        let first = try #require(try store.history(uid: "u").first { $0.kind == .updated })
        let restored = try store.restore(uid: "u", to: try #require(first.stateBefore), reason: "test", runID: nil)
        #expect(restored?.action == .reverted)
        #expect(try found(store, "old firm") == ["Ann"])
        #expect(try found(store, "new firm") == [])

        // A tombstone is never found; revived, it is found by its new card.
        try store.delete(uid: "u", reason: "deleted")
        #expect(try found(store, "old firm") == [])
        #expect(try found(store, "ann") == [])
        try store.upsert(try makeCard(uid: "u", name: "Ann", extraLines: ["ORG:Third Firm"]), reason: "test")
        #expect(try found(store, "third") == ["Ann"])

        // An undo of a run that changed it puts the keys of the version it brings back.
        let run = try store.beginOperation(.edit, note: "test")
        try store.upsert(
            try makeCard(uid: "u", name: "Anna", extraLines: ["ORG:Fourth Firm"]), reason: "edit", runID: run)
        try store.finishOperation(id: run)
        #expect(try found(store, "fourth") == ["Anna"])
        let undo = try store.undo(run: run)
        #expect(undo.reverted == 1)
        #expect(try found(store, "fourth") == [])
        #expect(try found(store, "third") == ["Ann"])

        // An import writes them too, and a card without a name is found by what names it.
        _ = try store.importChunk([
            try makeCard(uid: "v", name: "", extraLines: ["EMAIL:nobody@example.net", "TEL:+44 20 7946 0000"])
        ])
        #expect(try found(store, "nobody@") == ["nobody@example.net"])
        #expect(try found(store, "2079460") == ["nobody@example.net"])
    }

    @Test("each key holds the card's first 512 bytes of it: what comes after is not searched")
    func keysAreCut() throws {
        let fixture = try StoreFixture()
        // 40 addresses of 24 bytes and 40 numbers of 12 digits: each key goes past 512 bytes.
        let lines =
            (0..<40).map { "EMAIL:mailbox-\(String(1000 + $0).dropFirst())@example.org" }
            + (0..<40).map { "TEL:+49 170 \(1_000_000 + $0)" }
        try fixture.store.upsert(try makeCard(uid: "many", name: "Many", extraLines: lines), reason: "test")
        #expect(try found(fixture.store, "mailbox-000@") == ["Many"])
        #expect(try found(fixture.store, "mailbox-010@") == ["Many"])
        #expect(try found(fixture.store, "mailbox-039@") == [])
        #expect(try found(fixture.store, "491701000000") == ["Many"])
        #expect(try found(fixture.store, "491701000039") == [])
        #expect(try fixture.store.check() == [])
    }

    @Test("an unreadable card is found by the name on its FN line")
    func opaqueCard() throws {
        let fixture = try StoreFixture()
        let card = Card(opaque: "BEGIN:VCARD\r\nFN:Ada Lovelace\r\nTEL:123 456\r\nBROKEN", uid: "x")
        try fixture.store.upsert(card, reason: "test")
        #expect(try found(fixture.store, "lovelace") == ["Ada Lovelace (unreadable)"])
        #expect(try found(fixture.store, "123456") == [])
    }

    @Test("a word many contacts hold walks the name index, one few hold takes the trigram index: both find all")
    func commonAndRareWords() throws {
        let fixture = try StoreFixture()
        // More contacts than the trigram index takes hold "common"; three hold "rare", one holds a quote.
        let count = ContactStore.trigramLimit + 50
        for start in stride(from: 0, to: count, by: 100) {
            _ = try fixture.store.importChunk(
                (start..<min(count, start + 100)).map { index in
                    let word = index % 200 == 7 ? "rare" : "plain"
                    return try makeCard(
                        uid: "c\(index)", name: "Common \(word) \(index)",
                        extraLines: index == 9 ? ["ORG:The \"Quoted\" Co"] : [])
                })
        }
        #expect(try found(fixture.store, "common", limit: 100).count == count)
        #expect(try found(fixture.store, "RARE", limit: 2) == ["Common rare 207", "Common rare 7"])
        #expect(try found(fixture.store, "\"quoted\"") == ["Common plain 9"])
        #expect(try found(fixture.store, "quoted\" co") == ["Common plain 9"])
        #expect(try found(fixture.store, "x\u{1}y") == [])
        #expect(try found(fixture.store, "nothing holds this") == [])
        // A contact deleted, or renamed, is found by its new keys alone.
        #expect(try fixture.store.delete(uid: "c7", reason: "test"))
        try fixture.store.upsert(try makeCard(uid: "c8", name: "Now rare too"), reason: "test")
        #expect(try found(fixture.store, "rare") == ["Common rare 207", "Now rare too"])
        #expect(try lines(fixture.store, nil).count == count - 1)

        // The check finds an index that is not its rows', and a line that is not its card's.
        #expect(try fixture.store.check() == [])
        let raw = try fixture.rawDatabase()
        try raw.execute("DELETE FROM contacts_search WHERE rowid = 10")
        try raw.execute("UPDATE contacts_search SET words = 'other' WHERE rowid = 11")
        try raw.execute("UPDATE contacts SET list_phone = '1' WHERE uid = 'c12'")
        let findings = try fixture.store.check()
        #expect(findings.count == 4, "\(findings)")
        #expect(findings.contains("contact row 10: its search keys in the trigram index are not its row's"))
        #expect(
            findings.filter { $0 == "contact row 11: its search keys in the trigram index are not its row's" }.count
                == 2)
        #expect(findings.contains("uid c12: its line in the list (phone, email, photo) is not its card's"))

        // Every way a list's page is read takes its columns from the name index, never a contact's row (its card).
        let cursor = ContactCursor(displayName: "Common plain 5", id: 6)
        for search in [nil, "common", "rare", "555", "0301 5", "ab"] {
            for after in [nil, cursor] {
                let (sql, arguments) = try fixture.store.linesQuery(
                    after: after, limit: 100, search: search.flatMap(SearchQuery.init))
                let plan = try fixture.rawDatabase().query("EXPLAIN QUERY PLAN " + sql, arguments: arguments) {
                    try $0.string(3)
                }
                #expect(plan.contains { $0.contains("COVERING INDEX contacts_live_name") }, "\(plan)")
                #expect(
                    plan.allSatisfy {
                        $0.contains("COVERING INDEX") || $0.contains("VIRTUAL TABLE") || $0.contains("B-TREE")
                    }, "\(plan)")
            }
        }
    }
}

/// `text` with its ASCII capitals lower-cased, as SQLite's NOCASE compares.
func asciiLowercased(_ text: String) -> [UInt8] {
    text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
}

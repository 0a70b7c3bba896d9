import ContactStore
import Glibc
import SQLite
import TestSupport
import Testing
import VCard

@Suite("History retention")
struct RetentionTests {
    static let day: Int64 = 86_400_000
    static func days(_ count: Int64) -> Duration { .milliseconds(count * day) }

    @Test("rows older than the age go, in chunks, and younger ones stay")
    func pruneByAge() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        fixture.clock.advance(by: 0)
        try fixture.importContacts(150) { "Person \($0)" }  // 150 created rows
        fixture.clock.advance(by: 100 * Self.day)
        try store.upsert(try makeCard(uid: "uid-0", name: "Renamed"), reason: "test")
        let removed = try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(90), maxVersions: nil))
        #expect(removed == 150)
        #expect(try store.latestHistory().map(\.kind) == [.updated])
        #expect(try store.historySize().rows == 1)
    }

    @Test("beyond the count per contact the oldest go, but never the last version of a deleted contact")
    func pruneByCount() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "A0"), reason: "test")
        try store.delete(uid: "a", reason: "deleted")
        for index in 1...5 {
            try store.upsert(try makeCard(uid: "a", name: "A\(index)"), reason: "test")
        }
        try store.delete(uid: "a", reason: "deleted")
        for index in 0..<5 {
            try store.upsert(try makeCard(uid: "b", name: "B\(index)"), reason: "test")
        }
        // a: created, deleted, created, 4 updated, deleted (8 rows); b: created, 4 updated (5 rows).
        let removed = try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(365), maxVersions: 2))
        #expect(removed == 6 + 3)
        let rowsOfA = try store.history(uid: "a")
        #expect(rowsOfA.count == 2)
        #expect(rowsOfA.first?.kind == .deleted)
        #expect(rowsOfA.first?.vcard.contains("FN:A5") == true)
        #expect(try store.history(uid: "b").count == 2)

        // The newest deletion stays even when it is not among the newest rows.
        try store.upsert(try makeCard(uid: "a", name: "A6"), reason: "test")
        try store.upsert(try makeCard(uid: "a", name: "A7"), reason: "test")
        try store.upsert(try makeCard(uid: "a", name: "A8"), reason: "test")
        try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(365), maxVersions: 2))
        #expect(try store.history(uid: "a").map(\.kind) == [.updated, .updated, .deleted])
    }

    @Test("the store remembers up to when retention removed rows, by age or by count; nothing before the first")
    func prunedBefore() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "A0"), reason: "test")
        #expect(try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(90), maxVersions: 1)) == 0)
        #expect(try store.historyPrunedBefore() == nil)

        fixture.clock.advance(by: 10 * Self.day)
        try store.upsert(try makeCard(uid: "a", name: "A1"), reason: "test")
        let firstEdit = try #require(try store.history(uid: "a", limit: 1).first?.recordedAt)
        fixture.clock.advance(by: 10 * Self.day)
        try store.upsert(try makeCard(uid: "a", name: "A2"), reason: "test")
        // By count: the creation and the first edit go; the newest of them is the first edit.
        #expect(try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(90), maxVersions: 1)) == 2)
        #expect(try store.historyPrunedBefore() == firstEdit)

        fixture.clock.advance(by: 100 * Self.day)
        let ageCutoff = fixture.clock.now() - 90 * Self.day
        #expect(try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(90), maxVersions: nil)) == 1)
        let byAge = try #require(try store.historyPrunedBefore())
        #expect(byAge > firstEdit && byAge < ageCutoff)
        #expect(try fixture.reopen().historyPrunedBefore() == byAge)
    }

    @Test("the count looks only at contacts with rows since its last complete pass, unless the count went down")
    func pruneByCountLooksAtNewRowsOnly() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let keepTwo = ContactStore.Retention(maxAge: Self.days(365), maxVersions: 2)
        for index in 0..<4 {
            try store.upsert(try makeCard(uid: "a", name: "A\(index)"), reason: "test")
            try store.upsert(try makeCard(uid: "b", name: "B\(index)"), reason: "test")
        }
        #expect(try store.pruneHistory(keepTwo) == 4)  // 2 of a, 2 of b; ids 1 to 4 are free again

        // Rows slipped in below the pass's mark (as no writer of the store does) are not looked at again...
        let raw = try fixture.rawDatabase()
        for id in 1...3 {
            try raw.run(
                """
                INSERT INTO history (id, uid, vcard, hash, reason, recorded_at, kind)
                VALUES (?, 'z', '', '', 'test', ?, 'created')
                """, Int64(id), fixture.clock.now())
        }
        // ...while a contact with a new row is: a gets its third row and goes back to two.
        try store.upsert(try makeCard(uid: "a", name: "A4"), reason: "test")
        #expect(try store.pruneHistory(keepTwo) == 1)
        #expect(try store.history(uid: "z").count == 3)
        #expect(try store.history(uid: "a").count == 2)

        // A smaller count than the last pass's looks at every contact again.
        #expect(try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(365), maxVersions: 1)) == 2 + 1 + 1)
        #expect(try store.history(uid: "z").count == 1)
    }

    @Test("after the whole history went by age, the ids handed out again are counted")
    func pruneByCountAfterIdsAreReused() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let retention = ContactStore.Retention(maxAge: Self.days(90), maxVersions: 2)
        for index in 0..<3 {
            try store.upsert(try makeCard(uid: "a", name: "A\(index)"), reason: "test")
        }
        #expect(try store.pruneHistory(retention) == 1)  // counted through id 3
        fixture.clock.advance(by: 100 * Self.day)
        #expect(try store.pruneHistory(retention) == 2)  // by age: the history is empty
        for index in 0..<3 {
            try store.upsert(try makeCard(uid: "b", name: "B\(index)"), reason: "test")  // ids 1 to 3 again
        }
        #expect(try store.pruneHistory(retention) == 1)
        #expect(try store.history(uid: "b").count == 2)
    }

    /// What the default retention (90 days) costs for 10,000 contacts edited once a week each: 13 versions of
    /// every contact. Run with CONTACTBOX_MEASURE_HISTORY=1; it prints the figure (Docs/appliance.md quotes it).
    @Test(
        "measure: 10,000 contacts with one edit a week for 90 days",
        .enabled(if: getenv("CONTACTBOX_MEASURE_HISTORY") != nil, "set CONTACTBOX_MEASURE_HISTORY=1 to measure"))
    func measureDefaultRetention() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let contacts = 10_000
        func card(_ index: Int, week: Int) throws -> Card {
            try makeCard(
                uid: "contact-\(index)", name: "Firstname\(index) Lastname\(index % 977)",
                email: "person\(index)@example.org",
                extraLines: [
                    "N:Lastname\(index % 977);Firstname\(index);;;", "TEL;TYPE=cell:+49 170 \(1_000_000 + index)",
                    "TEL;TYPE=home:+49 30 \(2_000_000 + index)",
                    "ADR;TYPE=home:;;Example Street \(index % 200);Berlin;;10\(index % 1000);Germany",
                    "ORG:Example Company \(index % 50)", "BDAY:19\(50 + index % 50)-0\(1 + index % 9)-1\(index % 10)",
                    "NOTE:edited in week \(week)",
                ])
        }
        func pages(_ body: (Int) throws -> Void) throws {
            var start = 0
            while start < contacts {
                let end = min(start + 100, contacts)
                try store.transaction { for index in start..<end { try body(index) } }
                start = end
            }
        }
        try pages { try store.upsert(try card($0, week: 0), reason: "test") }
        let before = try fileBytes(fixture.path)
        for week in 1...13 {
            fixture.clock.advance(by: 7 * Self.day)
            try pages { try store.upsert(try card($0, week: week), reason: "test") }
        }
        try store.pruneHistory(ContactStore.Retention(maxAge: Self.days(90), maxVersions: 50))
        let after = try fileBytes(fixture.path)
        let size = try store.historySize()
        print(
            "history for \(contacts) contacts, one edit a week, 90 days: \(size.rows) rows,"
                + " \(size.bytes / 1_000_000) MB of versions; the store file grew by \((after - before) / 1_000_000) MB"
                + " (\(before / 1_000_000) MB -> \(after / 1_000_000) MB)")
    }

    private func fileBytes(_ path: String) throws -> Int64 {
        let raw = try Database(path: path)
        try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let pages = try raw.scalarInt64("PRAGMA page_count") ?? 0
        let size = try raw.scalarInt64("PRAGMA page_size") ?? 0
        return pages * size
    }
}

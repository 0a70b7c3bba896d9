import ContactStore
import SQLite
import Testing

@Suite("Store check")
struct CheckTests {
    /// A store with live contacts, an update, a tombstone and a renamed import: every kind of row.
    func makeHealthyStore() throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.importContacts(150) { "Person \($0)" }
        try fixture.store.upsert(try makeCard(uid: "uid-1", name: "Person One"), reason: "updated")
        try fixture.store.delete(uid: "uid-2", reason: "deleted")
        _ = try fixture.store.importChunk([try makeCard(uid: "uid-3", name: "Someone Else")])
        return fixture
    }

    @Test("a healthy store has no findings")
    func healthy() throws {
        let fixture = try makeHealthyStore()
        #expect(try fixture.store.check() == [])
    }

    @Test("a hash changed behind the store's back is reported for its uid")
    func tamperedHash() throws {
        let fixture = try makeHealthyStore()
        try fixture.rawDatabase().run("UPDATE contacts SET hash = 'deadbeef' WHERE uid = ?", "uid-120")
        let findings = try fixture.store.check()
        #expect(findings.count == 1)
        #expect(findings.first?.hasPrefix("uid uid-120: stored hash deadbeef differs") == true)
    }

    @Test("search keys that are not the card's are reported: a search would miss the contact")
    func staleSearchKeys() throws {
        let fixture = try makeHealthyStore()
        let raw = try fixture.rawDatabase()
        try raw.run("UPDATE contacts SET search_text = 'someone else' WHERE uid = ?", "uid-7")
        try raw.run("UPDATE contacts SET search_phones = '123' WHERE uid = ?", "uid-8")
        try raw.run("UPDATE contacts SET search_text = 'person 2' WHERE uid = ?", "uid-2")  // a tombstone
        let findings = try fixture.store.check()
        #expect(findings.count == 3)
        for uid in ["uid-2", "uid-7", "uid-8"] {
            #expect(findings.contains { $0.hasPrefix("uid \(uid): its search keys are not its card's") })
        }
    }

    @Test("a vCard edited behind the store's back no longer matches its hash")
    func tamperedVCard() throws {
        let fixture = try makeHealthyStore()
        let raw = try fixture.rawDatabase()
        try raw.run("UPDATE contacts SET vcard = replace(vcard, 'Person 5', 'Intruder') WHERE uid = ?", "uid-5")
        #expect(try raw.scalarString("SELECT vcard FROM contacts WHERE uid = 'uid-5'")?.contains("Intruder") == true)
        let findings = try fixture.store.check()
        #expect(findings.count == 1)
        #expect(findings.first?.hasPrefix("uid uid-5: stored hash") == true)
    }

    @Test("a vCard that no longer parses is reported")
    func unparsableVCard() throws {
        let fixture = try makeHealthyStore()
        try fixture.rawDatabase().run("UPDATE contacts SET vcard = 'BEGIN:VCARD\r\nFN:x' WHERE uid = ?", "uid-6")
        let findings = try fixture.store.check()
        #expect(findings.count == 1)
        #expect(findings.first?.hasPrefix("uid uid-6: stored vCard") == true)
    }

    @Test("a live row whose uid column differs from its vCard's UID is reported")
    func uidMismatch() throws {
        let fixture = try makeHealthyStore()
        try fixture.rawDatabase().run("UPDATE contacts SET uid = 'impostor' WHERE uid = ?", "uid-7")
        #expect(try fixture.store.check() == ["uid impostor: live contact's vCard has UID uid-7"])
    }

    @Test("change sequence numbers above the counter are reported")
    func counterBehind() throws {
        let fixture = try makeHealthyStore()
        let top = try fixture.store.currentChangeSeq()
        try fixture.rawDatabase().run("UPDATE sequence SET value = ?", top - 2)
        let findings = try fixture.store.check()
        #expect(findings.count == 2)
        #expect(findings.allSatisfy { $0.contains("above the sequence counter \(top - 2)") })
    }

    @Test("a dangling foreign key is reported")
    func foreignKey() throws {
        let fixture = try makeHealthyStore()
        let raw = try fixture.rawDatabase()
        try raw.execute("PRAGMA foreign_keys = OFF")
        try raw.run("INSERT INTO remote_items (remote_id, uid, href, etag, hash) VALUES (42, 'u', '/u.vcf', NULL, 'h')")
        let row = raw.lastInsertRowID
        let findings = try fixture.store.check()
        #expect(findings == ["foreign key: remote_items row \(row) refers to a missing remotes"])
    }
}

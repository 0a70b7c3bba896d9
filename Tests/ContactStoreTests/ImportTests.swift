import ContactStore
import Testing
import VCard

@Suite("Importing chunks of cards")
struct ImportTests {
    @Test("new cards are inserted as they were serialised, with name, hash and change sequence")
    func insertsNewCards() throws {
        let fixture = try StoreFixture()
        let ann = try makeCard(uid: "u-ann", name: "Ann Example", email: "ann@example.org")
        let bob = try makeCard(uid: "u-bob", name: "Bob", note: "Line one\\nline two")
        let outcomes = try fixture.store.importChunk([ann, bob])
        #expect(outcomes == [.inserted("u-ann"), .inserted("u-bob")])

        let stored = try #require(try fixture.store.contact(uid: "u-ann"))
        #expect(stored.vcard == ann.serialized())
        #expect(stored.displayName == "Ann Example")
        #expect(stored.hash == ann.contentHash)
        #expect(stored.deleted == false)
        #expect(stored.createdAt == stored.changedAt)
        #expect(try fixture.store.contact(uid: "u-bob")?.changeSeq == stored.changeSeq + 1)
        #expect(try fixture.store.count() == 2)
    }

    @Test("a card without any name is stored without an FN and listed by its EMAIL, else TEL, else (no name)")
    func namelessCards() throws {
        let fixture = try StoreFixture()
        let lines = [("e", "EMAIL:who@nowhere.example"), ("t", "TEL:+1 555 0100"), ("a", "ADR:;;1 Main St;Town;;;")]
        func read(_ uid: String, _ line: String) throws -> Card {
            var reader = CardReader(text: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\n\(line)\r\nEND:VCARD\r\n")
            let result = reader.next()
            return try #require(result).get().card
        }
        let cards = try lines.map(read)
        #expect(try fixture.store.importChunk(cards) == [.inserted("e"), .inserted("t"), .inserted("a")])
        #expect(try fixture.store.contact(uid: "e")?.displayName == "who@nowhere.example")
        #expect(try fixture.store.contact(uid: "t")?.displayName == "+1 555 0100")
        #expect(try fixture.store.contact(uid: "a")?.displayName == "(no name)")
        #expect(try fixture.store.contact(uid: "e")?.vcard.contains("FN") == false)
        var listed: [String] = []
        try fixture.store.forEachContact(search: nil) { listed.append($0.displayName) }
        #expect(listed == ["(no name)", "+1 555 0100", "who@nowhere.example"])
    }

    @Test("an exact duplicate, even under another UID and REV, is merged and nothing is written")
    func mergesExactDuplicates() throws {
        let fixture = try StoreFixture()
        let original = try makeCard(uid: "u-1", name: "Ann", email: "ann@example.org")
        #expect(try fixture.store.importChunk([original]) == [.inserted("u-1")])
        let sequence = try fixture.store.currentChangeSeq()

        let copy = try makeCard(
            uid: "u-2", name: "Ann", email: "ann@example.org", extraLines: ["REV:20240101T000000Z", "PRODID:-//x//y"])
        let sameUID = try makeCard(uid: "u-1", name: "Ann", email: "ann@example.org")
        let outcomes = try fixture.store.importChunk([copy, sameUID])
        #expect(outcomes == [.merged(existingUID: "u-1"), .merged(existingUID: "u-1")])
        #expect(try fixture.store.count(includingDeleted: true) == 1)
        #expect(try fixture.store.contact(uid: "u-2") == nil)
        #expect(try fixture.store.currentChangeSeq() == sequence)
    }

    @Test("a duplicate later in the same chunk is merged into the card imported earlier in it")
    func mergesWithinOneChunk() throws {
        let fixture = try StoreFixture()
        let first = try makeCard(uid: "u-1", name: "Ann")
        let second = try makeCard(uid: "u-2", name: "Ann")
        #expect(try fixture.store.importChunk([first, second]) == [.inserted("u-1"), .merged(existingUID: "u-1")])
    }

    @Test("a card whose UID belongs to different live content is kept next to it under a fresh UID")
    func renamesSameUIDDifferentContent() throws {
        let fixture = try StoreFixture()
        let original = try makeCard(uid: "u-1", name: "Ann", email: "ann@example.org")
        _ = try fixture.store.importChunk([original])

        let clash = try makeCard(uid: "u-1", name: "Ann", email: "ann@work.example")
        let outcomes = try fixture.store.importChunk([clash])
        guard case .renamed(let from, let to) = try #require(outcomes.first) else {
            Issue.record("expected a rename, got \(outcomes)")
            return
        }
        #expect(from == "u-1")
        #expect(to != "u-1")
        #expect(try fixture.store.count() == 2)
        // The original is untouched; the newcomer carries its new UID inside its vCard too.
        #expect(try fixture.store.contact(uid: "u-1")?.vcard == original.serialized())
        let renamed = try #require(try fixture.store.contact(uid: to))
        var expected = clash
        expected.setUID(to)
        #expect(renamed.vcard == expected.serialized())
        #expect(renamed.vcard.contains("UID:\(to)"))
        #expect(renamed.hash == clash.contentHash)
        // The version as it arrived is in history, under the UID it now has.
        let history = try fixture.replacedVersions(uid: to)
        #expect(history.map(\.reason) == ["import-duplicate-uid"])
        #expect(history.first?.vcard == clash.serialized())
        #expect(try fixture.store.check() == [])
    }

    @Test("a card whose UID is a tombstone revives that row with the new content and a new change sequence")
    func revivesTombstones() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.importChunk([try makeCard(uid: "u-1", name: "Ann")])
        try fixture.store.delete(uid: "u-1", reason: "deleted")
        let tombstone = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(tombstone.deleted)

        let comeback = try makeCard(uid: "u-1", name: "Ann Again")
        #expect(try fixture.store.importChunk([comeback]) == [.inserted("u-1")])
        let revived = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(!revived.deleted)
        #expect(revived.id == tombstone.id)
        #expect(revived.vcard == comeback.serialized())
        #expect(revived.displayName == "Ann Again")
        #expect(revived.changeSeq > tombstone.changeSeq)
        #expect(try fixture.store.count(includingDeleted: true) == 1)
    }

    @Test("a card without a UID is given one, stored inside its vCard")
    func assignsMissingUID() throws {
        let fixture = try StoreFixture()
        let outcomes = try fixture.store.importChunk([try makeCard(uid: nil, name: "Nobody")])
        guard case .inserted(let uid) = try #require(outcomes.first) else {
            Issue.record("expected an insert, got \(outcomes)")
            return
        }
        #expect(uid.count == 36)
        #expect(try fixture.store.contact(uid: uid)?.vcard.contains("UID:\(uid)") == true)
    }

    @Test("more than 100 cards in one chunk are refused before anything is written")
    func refusesOversizedChunk() throws {
        let fixture = try StoreFixture()
        let cards = try (0...100).map { try makeCard(uid: "u-\($0)", name: "P\($0)") }
        let error = try #require(throws: ContactStoreError.self) { try fixture.store.importChunk(cards) }
        #expect(error.code == .chunkTooLarge)
        #expect(try fixture.store.count(includingDeleted: true) == 0)
        #expect(try fixture.store.importChunk(Array(cards.prefix(100))).count == 100)
    }
}

import ContactStore
import Testing
import VCard

@Suite("Upsert, delete, history and the change sequence")
struct ContactWriteTests {
    @Test("upsert inserts, then overwrites and copies the replaced version into history")
    func upsertWritesHistory() throws {
        let fixture = try StoreFixture()
        let first = try makeCard(uid: "u-1", name: "Ann", email: "ann@example.org")
        let second = try makeCard(uid: "u-1", name: "Ann Smith", email: "ann@example.org")
        #expect(try fixture.store.upsert(first, reason: "updated"))
        let inserted = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(try fixture.replacedVersions(uid: "u-1") == [])

        #expect(try fixture.store.upsert(second, reason: "updated", remoteID: nil))
        let updated = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(updated.vcard == second.serialized())
        #expect(updated.displayName == "Ann Smith")
        #expect(updated.id == inserted.id)
        #expect(updated.createdAt == inserted.createdAt)
        #expect(updated.changedAt > inserted.changedAt)
        #expect(updated.changeSeq > inserted.changeSeq)

        let history = try fixture.replacedVersions(uid: "u-1")
        #expect(history.count == 1)
        #expect(history.first?.vcard == first.serialized())
        #expect(history.first?.hash == first.contentHash)
        #expect(history.first?.reason == "updated")
        #expect(history.first?.recordedAt == updated.changedAt)
    }

    @Test("upserting the identical card writes nothing and takes no change sequence")
    func upsertSameContentIsNoop() throws {
        let fixture = try StoreFixture()
        let card = try makeCard(uid: "u-1", name: "Ann")
        try fixture.store.upsert(card, reason: "updated")
        let before = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(try fixture.store.upsert(card, reason: "updated") == false)
        #expect(try fixture.store.contact(uid: "u-1") == before)
        #expect(try fixture.replacedVersions(uid: "u-1") == [])
        #expect(try fixture.store.currentChangeSeq() == before.changeSeq)
    }

    @Test("delete leaves a tombstone, copies the last version into history, and is idempotent")
    func deleteWritesHistoryAndTombstone() throws {
        let fixture = try StoreFixture()
        let card = try makeCard(uid: "u-1", name: "Ann")
        try fixture.store.upsert(card, reason: "updated")
        let live = try #require(try fixture.store.contact(uid: "u-1"))

        #expect(try fixture.store.delete(uid: "u-1", reason: "deleted"))
        let tombstone = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(tombstone.deleted)
        #expect(tombstone.changeSeq > live.changeSeq)
        #expect(tombstone.changedAt > live.changedAt)
        #expect(try fixture.store.count() == 0)
        #expect(try fixture.store.count(includingDeleted: true) == 1)
        let history = try fixture.replacedVersions(uid: "u-1")
        #expect(history.map(\.reason) == ["deleted"])
        #expect(history.first?.vcard == card.serialized())

        #expect(try fixture.store.delete(uid: "u-1", reason: "deleted") == false)
        #expect(try fixture.store.delete(uid: "never-seen", reason: "deleted") == false)
        #expect(try fixture.store.contact(uid: "u-1")?.changeSeq == tombstone.changeSeq)
        #expect(try fixture.replacedVersions(uid: "u-1").count == 1)
    }

    @Test("upsert over a tombstone revives it")
    func upsertRevivesTombstone() throws {
        let fixture = try StoreFixture()
        try fixture.store.upsert(try makeCard(uid: "u-1", name: "Ann"), reason: "updated")
        try fixture.store.delete(uid: "u-1", reason: "deleted")
        let back = try makeCard(uid: "u-1", name: "Ann Back")
        #expect(try fixture.store.upsert(back, reason: "updated"))
        let revived = try #require(try fixture.store.contact(uid: "u-1"))
        #expect(!revived.deleted)
        #expect(revived.vcard == back.serialized())
        #expect(try fixture.replacedVersions(uid: "u-1").map(\.reason) == ["deleted"])
    }

    @Test("a card without a UID cannot be upserted")
    func upsertNeedsUID() throws {
        let fixture = try StoreFixture()
        let error = try #require(throws: ContactStoreError.self) {
            try fixture.store.upsert(try makeCard(uid: nil, name: "Nobody"), reason: "updated")
        }
        #expect(error.code == .missingUID)
    }

    @Test("history names the remote involved until that remote is removed")
    func historyRemote() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/ab/")
        try fixture.store.upsert(try makeCard(uid: "u-1", name: "Ann"), reason: "updated")
        try fixture.store.upsert(
            try makeCard(uid: "u-1", name: "Ann B"), reason: "conflict-lost:icloud", remoteID: remote.id)
        #expect(try fixture.store.history(uid: "u-1").first?.remoteID == remote.id)
        try fixture.store.deleteRemote(id: remote.id)
        let entry = try #require(try fixture.store.history(uid: "u-1").first)
        #expect(entry.remoteID == nil)
        #expect(entry.reason == "conflict-lost:icloud")
    }

    @Test("the change sequence strictly increases across every kind of write and survives reopening")
    func changeSequenceIsMonotonic() throws {
        let fixture = try StoreFixture()
        var seen: [Int64] = []
        func record(_ uid: String) throws {
            seen.append(try #require(try fixture.store.contact(uid: uid)).changeSeq)
        }
        _ = try fixture.store.importChunk([try makeCard(uid: "a", name: "A"), try makeCard(uid: "b", name: "B")])
        try record("a")
        try record("b")
        try fixture.store.upsert(try makeCard(uid: "a", name: "A2"), reason: "updated")
        try record("a")
        try fixture.store.delete(uid: "b", reason: "deleted")
        try record("b")
        _ = try fixture.store.importChunk([try makeCard(uid: "b", name: "B2")])
        try record("b")
        #expect(seen == seen.sorted())
        #expect(Set(seen).count == seen.count)
        #expect(try fixture.store.currentChangeSeq() == seen.last)

        let reopened = try fixture.reopen()
        try reopened.upsert(try makeCard(uid: "c", name: "C"), reason: "updated")
        let after = try #require(try reopened.contact(uid: "c")).changeSeq
        #expect(after == (seen.last ?? 0) + 1)
    }

    @Test("a store transaction that throws rolls back every write in it, counter included")
    func storeTransactionRollsBack() throws {
        struct Abort: Error {}
        let fixture = try StoreFixture()
        try fixture.store.upsert(try makeCard(uid: "a", name: "A"), reason: "updated")
        let sequence = try fixture.store.currentChangeSeq()
        #expect(throws: Abort.self) {
            try fixture.store.transaction {
                try fixture.store.upsert(try makeCard(uid: "b", name: "B"), reason: "updated")
                try fixture.store.delete(uid: "a", reason: "deleted")
                throw Abort()
            }
        }
        #expect(try fixture.store.contact(uid: "b") == nil)
        #expect(try fixture.store.contact(uid: "a")?.deleted == false)
        #expect(try fixture.replacedVersions(uid: "a") == [])
        #expect(try fixture.store.currentChangeSeq() == sequence)
    }
}

import ContactStore
import TestSupport
import Testing

@Suite("Restore and undo")
struct RestoreTests {
    @Test("restore as of a time deletes what was created since, revives what was deleted, reverts what was edited")
    func restoreAsOf() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "edited", name: "Old name"), reason: "test")
        try store.upsert(try makeCard(uid: "deleted", name: "Dee"), reason: "test")
        try store.upsert(try makeCard(uid: "same", name: "Sam"), reason: "test")
        let moment = fixture.clock.millis
        try store.upsert(try makeCard(uid: "edited", name: "New name"), reason: "test")
        try store.delete(uid: "deleted", reason: "deleted")
        try store.upsert(try makeCard(uid: "new", name: "Newcomer"), reason: "test")
        let seqBefore = try store.currentChangeSeq()

        var seen: [String: RestoreChange.Action] = [:]
        let dry = try store.restore(asOf: moment, note: "test", dryRun: true) { seen[$0.uid] = $0.action }
        #expect(dry.runID == nil)
        #expect(seen == ["edited": .reverted, "deleted": .revived, "new": .deleted])
        #expect(try store.currentChangeSeq() == seqBefore)

        let done = try store.restore(asOf: moment, note: "test")
        #expect(done.reverted == 1 && done.revived == 1 && done.deleted == 1)
        #expect(try store.contact(uid: "edited")?.displayName == "Old name")
        #expect(try store.contact(uid: "deleted")?.deleted == false)
        #expect(try store.contact(uid: "new")?.deleted == true)
        #expect(try store.contact(uid: "same")?.changeSeq ?? 0 < seqBefore)
        let runID = try #require(done.runID)
        #expect(try store.syncRun(id: runID)?.kind == .restore)
        #expect(try store.history(uid: "edited").first?.runID == runID)
    }

    @Test("undoing a run takes back what it did, and undoing the undo gives the first state")
    func undoAndUndoTheUndo() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "test")
        try store.upsert(try makeCard(uid: "b", name: "Bob"), reason: "test")
        let run = try store.beginOperation(.import, note: "the mistake")
        try store.upsert(try makeCard(uid: "a", name: "Ann (wrong)"), reason: "test", runID: run)
        try store.delete(uid: "b", reason: "deleted", runID: run)
        try store.upsert(try makeCard(uid: "c", name: "Cy"), reason: "test", runID: run)
        try store.finishOperation(id: run)
        let after = try snapshot(store, ["a", "b", "c"])

        let undo = try store.undo(run: run)
        #expect(undo.reverted == 1 && undo.revived == 1 && undo.deleted == 1)
        #expect(try store.contact(uid: "a")?.displayName == "Ann")
        #expect(try store.contact(uid: "b")?.deleted == false)
        #expect(try store.contact(uid: "c")?.deleted == true)

        let redo = try store.undo(run: try #require(undo.runID))
        #expect(redo.changed == 3)
        #expect(try snapshot(store, ["a", "b", "c"]) == after)
    }

    @Test("undo of a run longer than a page takes a contact it changed twice back to before the first change, once")
    func undoAcrossPages() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "twice", name: "Before"), reason: "test")
        let run = try store.beginOperation(.import, note: "test")
        try store.upsert(try makeCard(uid: "twice", name: "First"), reason: "test", runID: run)
        let created = ContactStore.chunkLimit + 20
        for index in 0..<created {
            try store.upsert(try makeCard(uid: "new\(index)", name: "New \(index)"), reason: "test", runID: run)
        }
        try store.upsert(try makeCard(uid: "twice", name: "Second"), reason: "test", runID: run)
        try store.finishOperation(id: run)
        var actions: [String: [RestoreChange.Action]] = [:]
        let undo = try store.undo(run: run) { actions[$0.uid, default: []].append($0.action) }
        #expect(undo.reverted == 1 && undo.deleted == created && undo.skipped == 0)
        #expect(actions["twice"] == [.reverted])
        #expect(try store.contact(uid: "twice")?.displayName == "Before")
        #expect(try store.count() == 1)
    }

    @Test("undo leaves a contact changed again after the run and says so")
    func undoSkipsChangedSince() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "test")
        let run = try store.beginOperation(.edit, note: "test")
        try store.upsert(try makeCard(uid: "a", name: "Ann 2"), reason: "test", runID: run)
        try store.finishOperation(id: run)
        try store.upsert(try makeCard(uid: "a", name: "Ann 3"), reason: "later")
        var skipped: [String] = []
        let summary = try store.undo(run: run) { if $0.action == .skippedChangedSince { skipped.append($0.uid) } }
        #expect(summary.skipped == 1 && summary.changed == 0)
        #expect(skipped == ["a"])
        #expect(try store.contact(uid: "a")?.displayName == "Ann 3")
    }

    @Test("undo of an unknown or unfinished run is refused, naming the run")
    func undoRefusals() throws {
        let fixture = try StoreFixture()
        let unknown = try #require(throws: ContactStoreError.self) { try fixture.store.undo(run: 42) }
        #expect(unknown.code == .notFound && unknown.message.contains("run 42"))
        let running = try fixture.store.beginOperation(.edit, note: "test")
        let open = try #require(throws: ContactStoreError.self) { try fixture.store.undo(run: running) }
        #expect(open.message.contains("run \(running) has not finished"))
    }

    @Test("one contact goes back to a version from its history, and a deleted one comes back")
    func restoreOneContact() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "Ann", email: "old@example.org"), reason: "test")
        try store.upsert(try makeCard(uid: "a", name: "Ann", email: "new@example.org"), reason: "test")
        try store.delete(uid: "a", reason: "deleted")
        let version = try #require(try store.history(uid: "a").first { $0.kind == .updated })
        let run = try store.beginOperation(.restore, note: "test")
        let change = try store.restore(uid: "a", to: try #require(version.stateBefore), reason: "restore", runID: run)
        #expect(change?.action == .revived)
        #expect(try store.contact(uid: "a")?.vcard.contains("old@example.org") == true)
        #expect(try store.restore(uid: "a", to: try #require(version.stateBefore), reason: "again", runID: run) == nil)
    }

    /// Each contact's state by content: a restore dates what it writes (a new `REV`), which is no content.
    private func snapshot(_ store: ContactStore, _ uids: [String]) throws -> [String] {
        try uids.map { uid in
            guard let contact = try store.contact(uid: uid) else { return "\(uid): none" }
            return contact.deleted ? "\(uid): deleted" : "\(uid): \(contact.hash)"
        }
    }
}

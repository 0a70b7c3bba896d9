import ContactStore
import Testing

@testable import Sync

@Suite("Undoing a sync run against an in-memory remote")
struct SyncUndoTests {
    @Test("each change a sync makes names its run, and undoing the run reaches the remote at the next sync")
    func undoRunReachesRemote() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        _ = try fixture.store.importChunk([try makeCard("a", "Anna"), try makeCard("b", "Bert")])
        try fixture.sync(book)
        let firstState = book.contents

        book.put(cardText("a", "Anna (overwritten)"), at: "a.vcf")
        book.remove("b.vcf")
        book.put(cardText("c", "Carl"), at: "c.vcf")
        try fixture.sync(book)
        let run = try #require(try fixture.store.recentSyncRuns(limit: 1).first)
        #expect(try fixture.store.history(uid: "a").first?.runID == run.id)
        #expect(try fixture.store.historyCounts(runID: run.id) == [.created: 1, .updated: 1, .deleted: 1])

        let undo = try fixture.store.undo(run: run.id)
        #expect(undo.changed == 3)
        try fixture.sync(book)
        #expect(book.contents == firstState)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a local tombstone reaches the remote at the next sync")
    func localDeleteTravels() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        _ = try fixture.store.importChunk([try makeCard("a", "Anna"), try makeCard("b", "Bert")])
        try fixture.sync(book)
        let run = try fixture.store.beginOperation(.delete, note: "b")
        try fixture.store.delete(uid: "b", reason: "deleted on the command line", runID: run)
        try fixture.store.finishOperation(id: run)
        try fixture.sync(book)
        #expect(Set(book.contents.keys) == ["a"])
    }
}

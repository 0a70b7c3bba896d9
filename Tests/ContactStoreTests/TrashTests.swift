import ContactStore
import TestSupport
import Testing

@Suite("The trash, where contacts live, and what changed them")
struct TrashTests {
    static let day: Int64 = 86_400_000

    /// Every entry of the trash, paging by cursor with pages of `limit`.
    func wholeTrash(_ store: ContactStore, limit: Int = 100) throws -> [TrashEntry] {
        var entries: [TrashEntry] = []
        var cursor: TrashCursor?
        while case let page = try store.trash(after: cursor, limit: limit), let last = page.last {
            #expect(page.count <= limit)
            entries += page
            cursor = last.cursor
        }
        return entries
    }

    @Test("the newest deletion comes first, with the deleted version's name, its history row and its run")
    func orderAndCause() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        for (uid, name) in [("a", "Ann"), ("b", "Bob"), ("c", "Cy")] {
            try store.upsert(try makeCard(uid: uid, name: name), reason: "test")
        }
        #expect(try store.trash().isEmpty)
        let remote = try store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/")
        let sync = try store.beginSyncRun(remoteID: remote.id)
        try store.delete(uid: "b", reason: "deleted on icloud", remoteID: remote.id, runID: sync)
        let local = try store.beginOperation(.delete, note: "the command line")
        try store.delete(uid: "a", reason: "deleted on the command line", runID: local)
        try store.upsert(try makeCard(uid: "c", name: "Cyril"), reason: "test")
        try store.delete(uid: "c", reason: "deleted")

        let trash = try store.trash()
        #expect(trash.map(\.uid) == ["c", "a", "b"])
        #expect(trash.map(\.displayName) == ["Cyril", "Ann", "Bob"])
        #expect(trash.map(\.deletedAt) == trash.map(\.deletedAt).sorted(by: >))
        for entry in trash {
            let row = try #require(try store.historyEntry(id: entry.historyID))
            #expect(row.uid == entry.uid && row.kind == .deleted && row.recordedAt == entry.deletedAt)
            #expect(row.vcard.contains("FN:\(entry.displayName)"))
        }
        #expect(
            trash[1].cause
                == ChangeCause(
                    runID: local, runKind: .delete, remoteName: nil, note: "the command line",
                    reason: "deleted on the command line"))
        #expect(
            trash[2].cause
                == ChangeCause(
                    runID: sync, runKind: .sync, remoteName: "icloud", note: nil, reason: "deleted on icloud"))
        #expect(trash[0].cause == ChangeCause(runID: nil, runKind: nil, remoteName: nil, note: nil, reason: "deleted"))
    }

    @Test("paging by cursor visits every deleted contact once, newest first, deletions at the same time by row id")
    func paging() throws {
        let directory = try TemporaryDirectory()
        let clock = StoppedClock()
        let store = try ContactStore(path: directory.file("contacts.sqlite"), now: { clock.time })
        var uids: [String] = []
        for start in stride(from: 0, to: 250, by: 50) {
            let cards = try (start..<start + 50).map { try makeCard(uid: "u\($0)", name: "Person \($0)") }
            _ = try store.importChunk(cards)
            uids += cards.compactMap(\.uid)
        }
        // Deleted 23 at a time, each group at one time, in the reverse of row order.
        for start in stride(from: 0, to: 230, by: 23) {
            clock.time += 1_000
            for uid in uids[start..<start + 23].reversed() { try store.delete(uid: uid, reason: "deleted") }
        }
        for limit in [1, 9, 100] {
            let entries = try wholeTrash(store, limit: limit)
            #expect(entries.count == 230)
            #expect(Set(entries.map(\.uid)) == Set(uids.prefix(230)))
            for (previous, next) in zip(entries, entries.dropFirst()) {
                #expect(
                    previous.deletedAt > next.deletedAt
                        || (previous.deletedAt == next.deletedAt && previous.contactID > next.contactID))
            }
        }
    }

    @Test("a contact brought back is not in the trash; one deleted again is in it once, with its last deletion")
    func revived() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "test")
        try store.upsert(try makeCard(uid: "b", name: "Bob"), reason: "test")
        try store.delete(uid: "a", reason: "deleted")
        try store.delete(uid: "b", reason: "deleted")
        try store.upsert(try makeCard(uid: "a", name: "Ann again"), reason: "test")
        #expect(try store.trash().map(\.uid) == ["b"])

        // Undone deletions come back too.
        let run = try store.beginOperation(.delete, note: "test")
        try store.delete(uid: "a", reason: "deleted", runID: run)
        try store.finishOperation(id: run)
        #expect(try store.trash().map(\.uid) == ["a", "b"])
        _ = try store.undo(run: run)
        #expect(try store.trash().map(\.uid) == ["b"])

        try store.upsert(try makeCard(uid: "b", name: "Bob Two"), reason: "test")
        try store.delete(uid: "b", reason: "deleted twice")
        let trash = try store.trash()
        #expect(trash.map(\.uid) == ["b"])
        #expect(try store.trashEntry(uid: "b") == trash.first)
        #expect(try store.trashEntry(uid: "a") == nil)
        #expect(try store.trashEntry(uid: "nobody") == nil)
        #expect(trash.first?.displayName == "Bob Two")
        #expect(trash.first?.cause.reason == "deleted twice")
        let newest = try store.history(uid: "b").first { $0.kind == .deleted }
        #expect(trash.first?.historyID == newest?.id)
    }

    @Test("a deletion older than the history's age, pruned by retention, is no longer in the trash")
    func pruned() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "old", name: "Old"), reason: "test")
        try store.upsert(try makeCard(uid: "new", name: "New"), reason: "test")
        try store.delete(uid: "old", reason: "deleted")
        fixture.clock.advance(by: 100 * Self.day)
        try store.delete(uid: "new", reason: "deleted")
        #expect(try store.trash().map(\.uid) == ["new", "old"])
        try store.pruneHistory(ContactStore.Retention(maxAge: .milliseconds(90 * Self.day), maxVersions: nil))
        #expect(try store.trash().map(\.uid) == ["new"])
        // Still a tombstone: a sync needs it.
        #expect(try store.contact(uid: "old")?.deleted == true)
        #expect(try store.trashEntry(uid: "old") == nil)
        #expect(try store.trashEntry(uid: "new") == store.trash().first)
        // Nothing left in the history at all: an empty trash.
        fixture.clock.advance(by: 100 * Self.day)
        try store.pruneHistory(ContactStore.Retention(maxAge: .milliseconds(90 * Self.day), maxVersions: nil))
        #expect(try store.trash().isEmpty)
    }

    @Test("the remotes holding a contact are named from their saved item states, in the order they were added")
    func remoteNames() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let names = ["nextcloud", "icloud", "folder"]
        var remotes: [Remote] = []
        for name in names {
            remotes.append(try store.addRemote(name: name, kind: .carddav, url: "https://example.org/\(name)/"))
        }
        for remote in [remotes[2], remotes[0]] {
            try store.upsertRemoteItem(
                RemoteItemState(remoteID: remote.id, uid: "a", href: "/a.vcf", etag: "\"1\"", hash: "h"))
        }
        try store.upsertRemoteItem(
            RemoteItemState(remoteID: remotes[1].id, uid: "b", href: "/b.vcf", etag: nil, hash: "h"))
        #expect(try store.remoteNames(holding: "a") == ["nextcloud", "folder"])
        #expect(try store.remoteNames(holding: "b") == ["icloud"])
        #expect(try store.remoteNames(holding: "c") == [])
        try store.deleteRemoteItem(remoteID: remotes[0].id, uid: "a")
        #expect(try store.remoteNames(holding: "a") == ["folder"])
    }

    @Test("a contact's history comes with what made each change: run, kind, note and remote")
    func historyWithCauses() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let remote = try store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/")
        let sync = try store.beginSyncRun(remoteID: remote.id)
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "downloaded from icloud", runID: sync)
        let edit = try store.beginOperation(.edit, note: "the page")
        try store.upsert(try makeCard(uid: "a", name: "Anna"), reason: "edited", runID: edit)
        try store.finishOperation(id: edit)
        let undo = try store.undo(run: edit)
        let undoID = try #require(undo.runID)
        try store.upsert(try makeCard(uid: "a", name: "Annie"), reason: "replaced by icloud", remoteID: remote.id)
        try store.deleteRemote(id: remote.id)

        let caused = try store.historyWithCauses(uid: "a")
        #expect(caused.map(\.entry) == (try store.history(uid: "a")))
        #expect(
            caused.map(\.cause) == [
                ChangeCause(runID: nil, runKind: nil, remoteName: nil, note: nil, reason: "replaced by icloud"),
                ChangeCause(
                    runID: undoID, runKind: .undo, remoteName: nil, note: "undo of run \(edit)",
                    reason: "undo of run \(edit)"),
                ChangeCause(runID: edit, runKind: .edit, remoteName: nil, note: "the page", reason: "edited"),
                // Its remote removed since: the run stays, nameless.
                ChangeCause(
                    runID: sync, runKind: .sync, remoteName: nil, note: nil, reason: "downloaded from icloud"),
            ])
        let older = try store.historyWithCauses(uid: "a", before: caused[1].entry.id, limit: 1)
        #expect(older.map(\.entry.id) == [caused[2].entry.id])
    }

    @Test("the remote's name comes from the run, else from the history row")
    func remoteNameOfRowOrRun() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let remote = try store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/")
        let sync = try store.beginSyncRun(remoteID: remote.id)
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "downloaded", runID: sync)
        try store.upsert(try makeCard(uid: "a", name: "Anna"), reason: "replaced by icloud", remoteID: remote.id)
        #expect(try store.historyWithCauses(uid: "a").map(\.cause.remoteName) == ["icloud", "icloud"])
    }
}

/// A clock that reads the same until it is moved.
final class StoppedClock {
    var time: Int64 = 1_700_000_000_000
}

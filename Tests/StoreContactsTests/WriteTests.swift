import ContactStore
import StatusServer
import Testing
import VCard

@testable import StoreContacts

@Suite("Contacts for the page: versions, writes, restore and undo")
struct WriteTests {
    @Test("versions go newest first, each with its cause in words and the fields it changed")
    func versions() throws {
        let fixture = try BackendFixture()
        let importRun = try fixture.importCards([Cards.ada])
        let edited = Cards.ada.replacing(
            "item1.TEL;type=pref:+44 20 7946 0000", with: "item1.TEL;type=pref:+44 20 7946 0009"
        )
        .replacing(
            "PHOTO;ENCODING=b;TYPE=JPEG:\(base64(jpegBytes))",
            with: "PHOTO;ENCODING=b;TYPE=JPEG:\(base64(jpegBytes + [1, 2, 3]))")
        let syncRun = try fixture.syncCard(edited, remote: "icloud")
        try fixture.store.delete(uid: "apple-ada", reason: "deleted on the command line")

        let page = try fixture.backend.versions(uid: "apple-ada", before: nil, limit: 10)
        #expect(page.versions.map(\.kind) == ["deleted", "updated", "created"])
        #expect(page.next == nil)
        let (deleted, updated, created) = (page.versions[0], page.versions[1], page.versions[2])
        #expect(deleted.cause == "a change on the box")
        #expect(deleted.canRestore)
        #expect(deleted.changes.contains(FieldChange(field: "Name", before: "Ada Lovelace", after: nil)))
        #expect(updated.cause == "sync with icloud")
        #expect(updated.runID == syncRun)
        #expect(updated.canRestore)
        #expect(
            updated.changes == [
                FieldChange(field: "Phone (mobile)", before: "+44 20 7946 0000", after: "+44 20 7946 0009"),
                FieldChange(field: "Photo", before: "JPEG, 12 bytes", after: "JPEG, 15 bytes"),
            ])
        #expect(created.cause == "import")
        #expect(created.runID == importRun)
        #expect(!created.canRestore)
        #expect(created.changes.contains(FieldChange(field: "Phone (mobile)", before: nil, after: "+44 20 7946 0000")))

        // The command line's edit, as `contactbox edit` writes it.
        try fixture.store.upsert(try card(Cards.ada), reason: "test")
        let edit = try fixture.store.beginOperation(.edit, note: "apple-ada")
        try fixture.store.upsert(
            try card(Cards.ada.replacing("TITLE:Countess", with: "TITLE:Countess of Lovelace")),
            reason: "edited on the command line", runID: edit, stampingRevision: true)
        try fixture.store.finishOperation(id: edit)
        let byHand = try #require(try fixture.backend.versions(uid: "apple-ada", before: nil, limit: 1).versions.first)
        #expect(byHand.cause == "the command line (edit)")
        #expect(byHand.changes == [FieldChange(field: "Title", before: "Countess", after: "Countess of Lovelace")])

        // Older pages, before the deletion.
        let first = try fixture.backend.versions(uid: "apple-ada", before: deleted.id, limit: 1)
        #expect(first.versions.map(\.kind) == ["updated"])
        let rest = try fixture.backend.versions(uid: "apple-ada", before: try #require(first.next), limit: 1)
        #expect(rest.versions.map(\.kind) == ["created"])
        #expect(rest.next == nil)
    }

    @Test("a put creates a contact, takes the address's UID, and is a run of the page's")
    func putCreates() throws {
        let fixture = try BackendFixture()
        let body = Array(vcard(["VERSION:4.0", "FN:Katherine Johnson", "TEL;TYPE=cell:+1 555 0199"]).utf8)
        let outcome = try fixture.backend.write(.put(uid: "kj", vcard: body, ifMatch: nil, by: "the page"))
        #expect(outcome.created)
        #expect(outcome.contact?.uid == "kj")
        #expect(outcome.contact?.name == "Katherine Johnson")
        let run = try #require(try fixture.store.syncRun(id: outcome.runID))
        #expect(run.kind == .edit && run.finishedAt != nil && run.outcome == .ok)
        #expect(try fixture.store.contact(uid: "kj")?.hash == outcome.contact?.hash)
        let versions = try fixture.backend.versions(uid: "kj", before: nil, limit: 10)
        #expect(versions.versions.map(\.cause) == ["the page"])

        // Given If-Match, a contact that does not exist is a failed precondition.
        #expect(throws: ContactsError.self) {
            try fixture.backend.write(.put(uid: "other", vcard: body, ifMatch: "abc", by: "the page"))
        }
    }

    @Test("a put over a contact needs If-Match, and the hash it names must be the current one")
    func putUpdates() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace])
        let hash = try #require(try fixture.store.contact(uid: "google-grace")).hash
        let body = Array(Cards.grace.replacing("FN:Grace Hopper", with: "FN:Rear Admiral Grace Hopper").utf8)

        #expect(
            throws: ContactsError(
                status: 428, "If-Match is needed: contact google-grace exists; send the hash you last saw (its ETag)")
        ) {
            try fixture.backend.write(.put(uid: "google-grace", vcard: body, ifMatch: nil, by: "the page"))
        }
        do {
            _ = try fixture.backend.write(.put(uid: "google-grace", vcard: body, ifMatch: "stale", by: "the page"))
            Issue.record("a stale If-Match was taken")
        } catch {
            #expect(error.status == 412)
            #expect(error.message.contains(hash))
        }
        #expect(try fixture.store.recentSyncRuns(limit: 10).filter { $0.kind == .edit }.isEmpty)

        let outcome = try fixture.backend.write(
            .put(uid: "google-grace", vcard: body, ifMatch: "\"\(hash)\"", by: "API token kitchen"))
        #expect(!outcome.created)
        #expect(outcome.contact?.name == "Rear Admiral Grace Hopper")
        #expect(outcome.contact?.hash != hash)
        let latest = try #require(
            try fixture.backend.versions(uid: "google-grace", before: nil, limit: 1).versions.first)
        #expect(latest.cause == "API token kitchen")
        #expect(
            latest.changes == [FieldChange(field: "Name", before: "Grace Hopper", after: "Rear Admiral Grace Hopper")])
    }

    @Test("a put refuses another UID (409), a body that is not one vCard of UTF-8 text (400)")
    func putRefusals() throws {
        let fixture = try BackendFixture()
        func status(_ body: [UInt8], uid: String = "x") -> Int? {
            do {
                _ = try fixture.backend.write(.put(uid: uid, vcard: body, ifMatch: nil, by: "the page"))
                return nil
            } catch {
                return error.status
            }
        }
        #expect(status(Array(Cards.grace.utf8)) == 409)
        #expect(status([0xFF, 0xFE, 0x00, 0x42]) == 400)
        #expect(status(Array("<html><body>hello</body></html>".utf8)) == 400)
        #expect(status(Array((Cards.plain(uid: "x", name: "X") + Cards.plain(uid: "x", name: "Y")).utf8)) == 400)
        #expect(status([]) == 400)
        #expect(status(Array(Cards.plain(uid: "x\u{1B}", name: "X").utf8), uid: "x\u{1B}") == 400)
        #expect(try fixture.store.count(includingDeleted: true) == 0)
    }

    @Test("a delete needs If-Match, refuses a stale one and a contact that is not there, and lands in the trash")
    func delete() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace, Cards.ada])
        let hash = try #require(try fixture.store.contact(uid: "google-grace")).hash
        func status(_ write: ContactWrite) -> Int? {
            do {
                _ = try fixture.backend.write(write)
                return nil
            } catch {
                return error.status
            }
        }
        #expect(status(.delete(uid: "google-grace", ifMatch: nil, by: "the page")) == 428)
        #expect(status(.delete(uid: "google-grace", ifMatch: "stale", by: "the page")) == 412)
        #expect(status(.delete(uid: "nobody", ifMatch: hash, by: "the page")) == 404)
        let outcome = try fixture.backend.write(.delete(uid: "google-grace", ifMatch: hash, by: "API token kitchen"))
        #expect(outcome.contact == nil)
        #expect(try fixture.store.contact(uid: "google-grace")?.deleted == true)
        #expect(status(.delete(uid: "google-grace", ifMatch: hash, by: "the page")) == 404)

        let trash = try fixture.backend.trash(after: nil, limit: 10)
        #expect(trash.contacts.map(\.uid) == ["google-grace"])
        let trashed = try #require(trash.contacts.first)
        #expect(trashed.name == "Grace Hopper")
        #expect(trashed.cause == "API token kitchen")
        #expect(trash.next == nil)

        // Restoring the deletion from the trash brings it back, and takes it out of the trash.
        let back = try fixture.backend.write(
            .restore(uid: "google-grace", historyID: trashed.historyID, by: "the page"))
        #expect(back.created)
        #expect(back.contact?.hash == hash)
        #expect(try fixture.backend.trash(after: nil, limit: 10).contacts.isEmpty)
    }

    @Test("the trash goes a page at a time, newest first")
    func trashPaging() throws {
        let fixture = try BackendFixture()
        try fixture.importCards((0..<5).map { Cards.plain(uid: "t\($0)", name: "Trash \($0)") })
        for index in 0..<5 { try fixture.store.delete(uid: "t\(index)", reason: "deleted on the command line") }
        var uids: [String] = []
        var cursor: String?
        repeat {
            let page = try fixture.backend.trash(after: cursor, limit: 2)
            uids += page.contacts.map(\.uid)
            cursor = page.next
        } while cursor != nil
        #expect(uids == ["t4", "t3", "t2", "t1", "t0"])
        #expect(throws: ContactsError.self) { try fixture.backend.trash(after: "zzzz", limit: 2) }
    }

    @Test("a restore puts back the version before a change, as a run that the store's undo takes back")
    func restoreThenUndo() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace])
        try fixture.syncCard(Cards.grace.replacing("FN:Grace Hopper", with: "FN:Amazing Grace"), remote: "google")
        let update = try #require(
            try fixture.backend.versions(uid: "google-grace", before: nil, limit: 10).versions.first)
        #expect(update.kind == "updated")

        let preview = try fixture.backend.previewRestore(uid: "google-grace", historyID: update.id)
        #expect(preview == [FieldChange(field: "Name", before: "Amazing Grace", after: "Grace Hopper")])
        let restored = try fixture.backend.write(.restore(uid: "google-grace", historyID: update.id, by: "the page"))
        #expect(!restored.created)
        #expect(restored.contact?.name == "Grace Hopper")
        #expect(try fixture.store.syncRun(id: restored.runID)?.kind == .restore)
        #expect(
            try fixture.backend.versions(uid: "google-grace", before: nil, limit: 1).versions.first?.cause == "the page"
        )

        // Nothing to change now: said, and no run left behind.
        let runs = try fixture.store.recentSyncRuns(limit: 20).count
        #expect(throws: ContactsError.self) {
            try fixture.backend.write(.restore(uid: "google-grace", historyID: update.id, by: "the page"))
        }
        #expect(try fixture.store.recentSyncRuns(limit: 20).count == runs)

        let undo = try fixture.store.undo(run: restored.runID)
        #expect(undo.reverted == 1)
        #expect(try fixture.store.contact(uid: "google-grace")?.displayName == "Amazing Grace")
        let latest = try #require(
            try fixture.backend.versions(uid: "google-grace", before: nil, limit: 1).versions.first)
        #expect(latest.cause == "undo of run \(restored.runID)")
    }

    @Test("a restore refuses a change of another contact (404) and a creation, which has no version before it (409)")
    func restoreRefusals() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace, Cards.ada])
        let created = try #require(try fixture.store.history(uid: "google-grace").first)
        #expect(created.kind == .created)
        #expect(throws: ContactsError.self) {
            try fixture.backend.write(.restore(uid: "apple-ada", historyID: created.id, by: "the page"))
        }
        do {
            _ = try fixture.backend.write(.restore(uid: "google-grace", historyID: created.id, by: "the page"))
        } catch {
            #expect(error.status == 409)
        }
        do {
            _ = try fixture.backend.previewRestore(uid: "apple-ada", historyID: created.id)
        } catch {
            #expect(error.status == 404)
        }
    }
}

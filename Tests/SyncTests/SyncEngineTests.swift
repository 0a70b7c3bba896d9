import ContactStore
import SystemSupport
import Testing
import VCard

@testable import Sync

@Suite("Sync engine against an in-memory remote")
struct SyncEngineTests {
    @Test("a first sync downloads every remote contact, and the next sync does nothing in one listing")
    func firstSyncThenNoOp() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        for index in 0..<250 { book.put(cardText("r\(index)", "Remote \(index)"), at: "r\(index).vcf") }
        let first = try fixture.sync(book)
        #expect(first.outcome == .ok)
        #expect(first.counts.downloaded == 250)
        #expect(try fixture.localContents() == book.contents)
        // The first page is asked for before any card's size is known: 25, then 100 a page.
        #expect(book.fetchSizes == [25, 100, 100, 25])

        let second = try fixture.sync(book)
        #expect(second.counts == SyncCounts())
        #expect(book.calls["changes"] == 2)
        #expect(book.calls["fetch"] == 4)
    }

    @Test("listed sizes bound every fetch page to chunkBytes of cards, the first too, and a large card goes alone")
    func pagesBoundedByListedSizes() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.listsSizes = true
        // Two photos' worth (300 KB, folded: a NOTE line of 300 KB would be over the reader's line limit) among
        // 150 small cards.
        let large = (0..<4_000).map { "\($0)" + String(repeating: "x", count: 70) }.joined(separator: "\r\n ")
        for index in 0..<150 {
            let note = index == 10 || index == 11 ? large : nil
            book.put(cardText("r\(index)", "Remote \(index)", note: note), at: "r\(1000 + index).vcf")
        }
        let report = try fixture.sync(book)
        #expect(report.counts.downloaded == 150)
        #expect(try fixture.localContents() == book.contents)
        // Sizes known: no small first page, each photo alone, and the rest 100 at most.
        #expect(book.fetchSizes == [10, 1, 1, 100, 38])
    }

    @Test(
        "cards a first download's listing brings along are settled from it, not fetched; after a listing cut short only the rest are fetched",
        arguments: [Int.max, 120])
    func cardsWithListing(sent: Int) throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.cardsWithListing = sent
        for index in 0..<250 { book.put(cardText("r\(index)", "Remote \(index)"), at: "r\(index).vcf") }
        // The store holds one of them already, edited: settled like any other, after the listing.
        _ = try fixture.store.importChunk([try makeCard("r7", "Remote 7", note: "edited here")])
        let first = try fixture.sync(book)
        #expect(first.outcome == .ok)
        #expect(first.counts.downloaded == 249)
        #expect(first.counts.conflicts == 1)
        #expect(try fixture.localContents() == book.contents)
        let fetched = 250 - min(sent, 250)
        #expect(book.fetchSizes.reduce(0, +) == fetched)
        #expect(try fixture.store.attachedScratch() == [])

        let second = try fixture.sync(book)
        #expect(second.counts == SyncCounts())
        #expect(book.calls["changes with cards"] == 1)
        #expect(book.fetchSizes.reduce(0, +) == fetched)
    }

    @Test("cards with large photos travel a few at a time both ways, so that a chunk's memory stays bounded")
    func largeCardsMakeSmallChunks() throws {
        let photo = String(repeating: "QUJD", count: 10_000)  // 40 KB of base64
        func photoCard(_ index: Int) -> String {
            cardText("p\(index)", "Photo \(index)").replacing(
                "END:VCARD", with: "PHOTO;ENCODING=b;TYPE=JPEG:\(photo)\r\nEND:VCARD")
        }
        let sender = try SyncFixture()
        var reader = CardReader(text: (0..<60).map(photoCard).joined())
        var cards: [Card] = []
        while case .success(let parsed) = reader.next() { cards.append(parsed.card) }
        _ = try sender.store.importChunk(cards)
        let book = FakeAddressBook()
        #expect(try sender.sync(book).counts.uploaded == 60)
        // 128 KiB of card text a chunk of uploads: the card that reaches it ends the chunk.
        #expect(book.writeBatches == Array(repeating: 4, count: 15))

        let receiver = try SyncFixture()
        #expect(try receiver.sync(book).counts.downloaded == 60)
        #expect(try receiver.localContents() == book.contents)
        // 25 before any size is known, then as many as fit in 256 KiB: 6.
        #expect(book.fetchSizes == [25, 6, 6, 6, 6, 6, 5])
    }

    @Test("local contacts are uploaded, and edits and deletions travel both ways")
    func changesTravelBothWays() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        _ = try fixture.store.importChunk([try makeCard("a", "Anna"), try makeCard("b", "Bert")])
        book.put(cardText("c", "Carl"), at: "c.vcf")
        try fixture.sync(book)
        #expect(Set(book.contents.keys) == ["a", "b", "c"])
        #expect(try fixture.localContents() == book.contents)

        try fixture.store.upsert(try makeCard("a", "Anna", note: "new phone"), reason: "edited")
        book.put(cardText("c", "Carl", note: "moved"), at: "c.vcf")
        try fixture.store.delete(uid: "b", reason: "deleted")
        let report = try fixture.sync(book)
        #expect(report.counts.updated == 2)
        #expect(report.counts.deleted == 1)
        #expect(book.cards["a.vcf"]?.first("NOTE")?.text == "new phone")
        #expect(try fixture.store.contact(uid: "c")?.vcard.contains("NOTE:moved") == true)
        #expect(book.items["b.vcf"] == nil)

        book.remove("c.vcf")
        try fixture.sync(book)
        #expect(try fixture.store.contact(uid: "c")?.deleted == true)
        #expect(try fixture.store.history(uid: "c").first?.reason == "deleted on fake")
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("both sides editing one contact: the policy's winner is everywhere, the loser in history")
    func conflictKeepsTheLoser() throws {
        for (policy, winner) in [(ConflictPolicy.local, "mine"), (.remote, "theirs"), (.newest, "theirs")] {
            let fixture = try SyncFixture()
            let book = FakeAddressBook()
            book.put(cardText("x", "Xena"), at: "x.vcf")
            try fixture.sync(book, SyncOptions(policy: policy))
            try fixture.store.upsert(
                try makeCard("x", "Xena", note: "mine", rev: "2024-01-01T00:00:00Z"), reason: "edit")
            book.put(cardText("x", "Xena", note: "theirs", rev: "2024-06-01T00:00:00Z"), at: "x.vcf")
            let report = try fixture.sync(book, SyncOptions(policy: policy))
            #expect(report.counts.conflicts == 1)
            #expect(book.cards["x.vcf"]?.first("NOTE")?.text == winner)
            #expect(try fixture.localContents() == book.contents)
            let lost = try fixture.store.history(uid: "x").filter { $0.reason == "conflict-lost:fake" }
            #expect(lost.count == 1)
            #expect(lost.first?.vcard.contains(winner == "mine" ? "theirs" : "mine") == true)
        }
    }

    @Test("an edit beats a deletion on the other side, in both directions")
    func editBeatsDelete() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("p", "Paul"), at: "p.vcf")
        book.put(cardText("q", "Quinn"), at: "q.vcf")
        try fixture.sync(book)
        try fixture.store.upsert(try makeCard("p", "Paul", note: "kept"), reason: "edit")
        book.remove("p.vcf")
        try fixture.store.delete(uid: "q", reason: "deleted")
        book.put(cardText("q", "Quinn", note: "kept too"), at: "q.vcf")
        try fixture.sync(book)
        #expect(book.contents["p"] != nil)
        #expect(try fixture.store.contact(uid: "q")?.deleted == false)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a remote that suddenly lists empty deletes nothing until confirmed")
    func emptyRemoteGuard() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook(usesTokens: false)
        for index in 0..<10 { book.put(cardText("e\(index)", "E \(index)"), at: "e\(index).vcf") }
        try fixture.sync(book)
        for index in 0..<10 { book.remove("e\(index).vcf") }
        let held = try fixture.sync(book)
        #expect(held.outcome == .deletionsHeld)
        #expect(held.deletionsHeld == 10)
        #expect(held.message?.contains("lists no contacts") == true)
        #expect(try fixture.store.count() == 10)
        #expect(try fixture.store.recentSyncRuns(limit: 1).first?.outcome == .deletionsHeld)

        let confirmed = try fixture.sync(book, SyncOptions(confirmDeletions: true))
        #expect(confirmed.outcome == .ok)
        #expect(try fixture.store.count() == 0)
        #expect(try fixture.store.history(uid: "e3").first?.reason == "deleted on fake")
    }

    @Test("a run deleting more than the configured share holds its deletions, in either direction")
    func shareGuard() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        for index in 0..<20 { book.put(cardText("s\(index)", "S \(index)"), at: "s\(index).vcf") }
        try fixture.sync(book)
        for index in 0..<8 { try fixture.store.delete(uid: "s\(index)", reason: "oops") }
        let held = try fixture.sync(book)
        #expect(held.outcome == .deletionsHeld)
        #expect(book.items.count == 20)
        // A small deletion stays below the floor and simply syncs, even when the run is confirmed later.
        let confirmed = try fixture.sync(book, SyncOptions(confirmDeletions: true))
        #expect(confirmed.counts.deleted == 8)
        #expect(book.items.count == 12)
        book.remove("s10.vcf")
        #expect(try fixture.sync(book).outcome == .ok)
        #expect(try fixture.store.contact(uid: "s10")?.deleted == true)
    }

    @Test("a 412 on upload is re-planned as the conflict it is, and never loops")
    func preconditionFailureReplans() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("m", "Mia"), at: "m.vcf")
        try fixture.sync(book)
        try fixture.store.upsert(try makeCard("m", "Mia", note: "local"), reason: "edit")
        book.failNextWrite["m.vcf"] = RemoteError(.preconditionFailed, "m.vcf changed")
        let report = try fixture.sync(book, SyncOptions(policy: .local))
        #expect(report.counts.errors == 0)
        #expect(book.cards["m.vcf"]?.first("NOTE")?.text == "local")
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a 412 on a deletion re-plans the item: the edit made on the remote meanwhile comes down instead")
    func preconditionFailureOnDeleteReplans() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("d", "Dana"), at: "d.vcf")
        try fixture.sync(book)
        try fixture.store.delete(uid: "d", reason: "deleted here")
        // Another client edits the card between our listing and our deletion.
        book.beforeNextWrite["d.vcf"] = { book.put(cardText("d", "Dana", note: "remote edit"), at: "d.vcf") }
        let report = try fixture.sync(book)
        #expect(report.counts.errors == 0, "\(report.errors)")
        #expect(report.counts.deleted == 0)
        #expect(report.counts.downloaded == 1)
        #expect(book.cards["d.vcf"]?.first("NOTE")?.text == "remote edit")
        #expect(try fixture.store.contact(uid: "d")?.deleted == false)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("an item that meets a 412 again after its re-plan is an error of its own, and is sent again next run")
    func secondPreconditionFailureIsAnError() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("m", "Mia"), at: "m.vcf")
        try fixture.sync(book)
        try fixture.store.upsert(try makeCard("m", "Mia", note: "local"), reason: "edit")
        book.refuse["m.vcf"] = RemoteError(.preconditionFailed, "m.vcf changed")
        let report = try fixture.sync(book)
        #expect(report.outcome == .ok)
        #expect(report.counts.errors == 1)
        #expect(book.calls["update"] == 2, "the upload and the upload re-planned after its 412, no more")
        book.refuse.removeAll()
        let next = try fixture.sync(book)
        #expect(next.counts.updated == 1)
        #expect(book.cards["m.vcf"]?.first("NOTE")?.text == "local")
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a remote that goes down mid-run fails the run; the next run completes with no duplicate")
    func interruptedRunResumes() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        _ = try fixture.store.importChunk((0..<30).map { try makeCard("u\($0)", "U \($0)") })
        book.failNextWrite["u7.vcf"] = RemoteError(.unavailable(retryAfter: nil), "server down")
        let failed = try fixture.sync(book)
        #expect(failed.outcome == .failed)
        #expect(failed.message == "server down")
        #expect(try fixture.store.attachedScratch() == [])  // the run's listing went with it
        let resumed = try fixture.sync(book)
        #expect(resumed.outcome == .ok)
        #expect(book.items.count == 30)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("the same UID at two hrefs is merged only when identical, else kept as two contacts")
    func serverDuplicates() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("d", "Dup"), at: "d.vcf")
        try fixture.sync(book)
        book.put(cardText("d", "Dup"), at: "copy-of-d.vcf")
        try fixture.sync(book)
        #expect(book.items["copy-of-d.vcf"] == nil)
        #expect(book.items["d.vcf"] != nil)
        book.put(cardText("d", "Dup", note: "different"), at: "other-d.vcf")
        let report = try fixture.sync(book)
        #expect(report.counts.errors == 0)
        #expect(report.counts.downloaded == 1)
        #expect(report.notes.first?.contains("two places") == true)
        #expect(book.items["other-d.vcf"] != nil)
    }

    @Test("two remotes converge through the store")
    func twoRemotesConverge() throws {
        let fixture = try SyncFixture()
        let cloud = FakeAddressBook(name: "cloud")
        let folder = FakeAddressBook(name: "folder", usesTokens: false)
        cloud.put(cardText("c1", "From Cloud"), at: "c1.vcf")
        folder.put(cardText("f1", "From Folder"), at: "f1.vcf")
        for _ in 0..<2 {
            try fixture.sync(cloud)
            try fixture.sync(folder)
        }
        #expect(Set(cloud.contents.keys) == ["c1", "f1"])
        #expect(cloud.contents == folder.contents)
        folder.put(cardText("c1", "From Cloud", note: "edited in the folder"), at: "c1.vcf")
        try fixture.sync(folder)
        try fixture.sync(cloud)
        #expect(cloud.contents == folder.contents)
        #expect(try fixture.localContents() == cloud.contents)
    }

    @Test("a remote card without UID keeps one identity across syncs")
    func cardWithoutUID() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No Id\r\nEND:VCARD\r\n", at: "noid.vcf")
        try fixture.sync(book)
        book.put("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No Id\r\nNOTE:edited\r\nEND:VCARD\r\n", at: "noid.vcf")
        try fixture.sync(book)
        #expect(try fixture.store.count() == 1)
    }

    @Test("a dry run writes nothing on either side")
    func dryRun() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("r", "Remote"), at: "r.vcf")
        _ = try fixture.store.importChunk([try makeCard("l", "Local")])
        let report = try fixture.sync(book, SyncOptions(dryRun: true))
        #expect(report.counts.downloaded == 1)
        #expect(report.counts.uploaded == 1)
        #expect(try fixture.store.count() == 1)
        #expect(book.items.count == 1)
        #expect(try fixture.store.recentSyncRuns().isEmpty)
    }
}

@Suite("Sync engine: creates that collide")
struct CreateCollisionTests {
    @Test("a create that finds the place taken (412) fetches what is there and settles it, with no error")
    func createCollision() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook(usesTokens: true)
        try fixture.sync(book)  // an empty first sync: the token now hides what comes next
        _ = try fixture.store.importChunk([try makeCard("k", "Kai", note: "local")])
        // Another client creates the same UID on the remote between our listing and our upload.
        book.beforeNextWrite["k.vcf"] = { book.put(cardText("k", "Kai", note: "remote"), at: "k.vcf") }
        let report = try fixture.sync(book, SyncOptions(policy: .local))
        #expect(report.counts.errors == 0, "\(report.errors)")
        #expect(report.counts.conflicts == 1)
        #expect(book.cards["k.vcf"]?.first("NOTE")?.text == "local")
        #expect(try fixture.store.history(uid: "k").contains { $0.reason == "conflict-lost:fake" })
        #expect(try fixture.localContents() == book.contents)
    }
}

import CardDAV
import ContactStore
import Foundation
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

/// The sync engine against each real CardDAV server (Radicale 3.9, Xandikos 0.4, Cyrus IMAP 3.6), started on
/// 127.0.0.1 for each test and stopped by PID. Each check reads both sides: the store, and the server over curl.
///
@Suite("Sync with each real CardDAV server", .serialized, .timeLimit(.minutes(10)))
struct ServerSyncTests {
    @Test(
        "a first sync uploads the store's contacts and downloads the server's; a no-op is one request",
        arguments: TestServerKind.available)
    func firstSyncEachWay(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        _ = try fixture.store.importChunk([try card("local-1", "Lena Local"), try card("local-2", "Lars Local")])
        try fixture.putOnServer(vcard("server-1", "Sara Server", "TEL;TYPE=CELL:+49 170 5550100"), as: "server-1.vcf")
        let report = try fixture.sync()
        let (localNow, serverNow) = (try fixture.localContents(), try fixture.serverContents())
        // Xandikos answers 423 Locked when the two uploads overlap: the client sends them again in the same pass.
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors)")
        #expect(report.counts.uploaded == 2)
        #expect(localNow == serverNow)
        #expect(serverNow["local-1"] != nil)
        #expect(report.counts.downloaded == 1)
        #expect(try fixture.serverCards()["local-1"]?.displayName == "Lena Local")
        #expect(try fixture.store.contact(uid: "server-1")?.vcard.contains("+49 170 5550100") == true)

        // Nothing changed: one request, nothing written.
        let before = fixture.requestCount
        let quiet = try fixture.sync()
        #expect(quiet.counts == SyncCounts())
        #expect(fixture.requestCount - before == 1, "a sync with nothing to do is one sync-collection REPORT")
    }

    @Test(
        "hundreds of cards, 3.0 and 4.0 with photos, go up and come down intact; a second box gets the same",
        arguments: TestServerKind.available)
    func bulkUploadAndDownload(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        let count = 150
        let local = try (0..<count).map { try parsedCard(TestPhotos.card("up", $0)) }
        for chunk in stride(from: 0, to: count, by: 75) {
            _ = try fixture.store.importChunk(Array(local[chunk..<min(chunk + 75, count)]))
        }
        // Radicale advertises 3.0 only and drops the image of a 4.0 PHOTO data: URI it stores: a 4.0 client would
        // not write one there, so its seeded cards carry their photos in 3.0 form.
        let remote = (0..<count).map { TestPhotos.card("down", $0, photosIn40: kind != .radicale) }
        try fixture.server.seed(remote.enumerated().map { ("down-\($0.offset).vcf", $0.element) })
        let originals = Dictionary(
            uniqueKeysWithValues: try (local + remote.map(parsedCard)).map { ($0.uid ?? "", $0.contentHash) })

        let report = try fixture.sync()
        #expect(report.counts.downloaded == count)
        // Xandikos answers 423 Locked to writes that overlap (default concurrency 4): all land in this one pass.
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors.prefix(3))")
        #expect(report.counts.uploaded == count)
        #expect(report.counts.errors == 0)

        // Both sides hold every card, with the content (photos included) it started with.
        let server = try fixture.serverContents()
        #expect(server.count == 2 * count)
        let localNow = try fixture.localContents()
        // Cyrus: the first download is a multiget without a version too, so the seeded 4.0 photos are lost already.
        let changed = originals.filter { localNow[$0.key] != $0.value }.keys.sorted()
        #expect(changed.isEmpty, "cards the box got changed: \(changed.count), e.g. \(changed.prefix(5))")
        #expect(Set(localNow.keys) == Set(originals.keys))
        let differing = originals.filter { server[$0.key] != $0.value }.keys.sorted()
        #expect(differing.isEmpty, "cards that differ on the server: \(differing.prefix(5))")
        let photo = try #require(try fixture.serverCards()["up-5"]?.first("PHOTO"))
        #expect(photo.value.contains(TestPhotos.png), "a 4.0 photo survives the upload")

        let before = fixture.requestCount
        #expect(try fixture.sync().counts == SyncCounts())
        #expect(fixture.requestCount - before == 1)

        // A second box downloading the whole book gets exactly the first box's contacts.
        let second = try fixture.secondBox()
        let discovery = second.http.requestCounts
        let download = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(download.counts.downloaded == 2 * count)
        // From Radicale in one query for every card, after the book's sync-token; from the others, the token and a
        // PROPFIND listing, then multigets (25 cards before any size is known, then as many as fit in 256 KiB).
        let requests = second.http.requestCounts.merging(discovery) { $0 - $1 }.filter { $0.value > 0 }
        if kind == .radicale {
            #expect(requests == ["PROPFIND": 1, "REPORT": 1])
        } else {
            #expect(requests["PROPFIND"] == 2)
            #expect((requests["REPORT"] ?? 0) > 2)
        }
        let secondContents = try ServerSyncFixture.contents(of: second.store)
        // Cyrus serves 3.0 unless the client asks for 4.0, and its 3.6 turns a 4.0 PHOTO data: URI into a bare
        // `data:image/png` on the way: the multiget asks for 4.0 where discovery offers it.
        let lost = originals.filter { secondContents[$0.key] != $0.value }.keys.sorted()
        #expect(lost.isEmpty, "cards the second box got changed: \(lost.count), e.g. \(lost.prefix(5))")
        #expect(Set(secondContents.keys) == Set(originals.keys))
    }

    @Test("edits, deletions and creations on each side reach the other", arguments: TestServerKind.available)
    func editsDeletionsAndCreations(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        _ = try fixture.store.importChunk([try card("a", "Anna"), try card("b", "Bert")])
        try fixture.putOnServer(vcard("c", "Cleo"), as: "c.vcf")
        try fixture.putOnServer(vcard("d", "Dirk"), as: "d.vcf")
        #expect(try fixture.sync().outcome == .ok)

        try fixture.store.upsert(try card("a", "Anna", "NOTE:new number"), reason: "edited on the box")
        try fixture.store.delete(uid: "b", reason: "deleted on the box")
        _ = try fixture.store.importChunk([try card("e", "Emil")])
        try fixture.putOnServer(vcard("c", "Cleo", "EMAIL:cleo@example.org"), as: "c.vcf")
        try fixture.deleteOnServer("d.vcf")
        try fixture.putOnServer(vcard4("f", "Fritzi", "EMAIL:fritzi@example.org"), as: "f.vcf")
        let report = try fixture.sync()
        let server = try fixture.serverCards()
        // Xandikos answers 423 Locked to writes that overlap (the update, deletion and creation go out together):
        // they are sent again within the pass.
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors)")
        #expect(report.counts.errors == 0, "\(report.errors)")
        #expect(report.counts.updated == 2)
        #expect(report.counts.uploaded == 1)
        #expect(report.counts.deleted == 2)
        #expect(server["a"]?.first("NOTE")?.text == "new number")
        #expect(server["b"] == nil)
        #expect(server["e"]?.displayName == "Emil")
        #expect(report.counts.downloaded == 1)
        #expect(try fixture.store.contact(uid: "c")?.vcard.contains("cleo@example.org") == true)
        #expect(try fixture.store.contact(uid: "f")?.vcard.contains("fritzi@example.org") == true)
        // d was downloaded before: every server reports its deletion.
        #expect(try fixture.store.contact(uid: "d")?.deleted == true)
        #expect(try fixture.store.history(uid: "d").first?.reason == "deleted on \(fixture.remoteName)")
        let (localNow, serverNow) = (try fixture.localContents(), try fixture.serverContents())
        #expect(localNow == serverNow)
        let after = try fixture.sync()
        #expect(after.counts == SyncCounts())
    }

    @Test(
        "both sides editing one contact: the newest wins everywhere, the other version is in history",
        arguments: TestServerKind.available)
    func bothSidesEdit(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.putOnServer(vcard("x", "Xaver"), as: "x.vcf")
        try fixture.sync()
        try fixture.store.upsert(
            try card("x", "Xaver", "NOTE:box edit", "REV:2024-01-01T00:00:00Z"), reason: "edited on the box")
        try fixture.putOnServer(vcard("x", "Xaver", "NOTE:phone edit", "REV:2025-01-01T00:00:00Z"), as: "x.vcf")
        let report = try fixture.sync()
        #expect(report.counts.conflicts == 1)
        #expect(try fixture.serverCards()["x"]?.first("NOTE")?.text == "phone edit")
        #expect(try fixture.store.contact(uid: "x")?.vcard.contains("phone edit") == true)
        #expect(try fixture.localContents() == fixture.serverContents())
        let lost = try fixture.store.history(uid: "x").first { $0.reason == "conflict-lost:\(fixture.remoteName)" }
        #expect(lost?.vcard.contains("box edit") == true)
    }

    @Test(
        "an edit on the box 3 s after one on the server wins, though the card kept an older REV; the server's edit is in history",
        arguments: TestServerKind.available)
    func laterBoxEditWins(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.putOnServer(vcard("r", "Rita", "REV:20200101T000000Z"), as: "r.vcf")
        try fixture.sync()
        // The server dates its edit by its clock; the box edits the card 3 s later (as `contactbox edit` and
        // `import --update` do: through the store, the card's old REV in the text).
        let serverTime = Card.revision(milliseconds: wallClockMillis() - 3_000)
        try fixture.putOnServer(vcard("r", "Rita", "NOTE:phone edit", "REV:\(serverTime)"), as: "r.vcf")
        try fixture.store.upsert(
            try card("r", "Rita", "NOTE:box edit", "REV:20200101T000000Z"), reason: "edited on the command line",
            stampingRevision: true)
        let report = try fixture.sync()
        #expect(report.counts.conflicts == 1, "\(report.errors)")
        #expect(try fixture.serverCards()["r"]?.first("NOTE")?.text == "box edit")
        #expect(try fixture.store.contact(uid: "r")?.vcard.contains("box edit") == true)
        #expect(try fixture.localContents() == fixture.serverContents())
        let lost = try fixture.store.history(uid: "r").first { $0.reason == "conflict-lost:\(fixture.remoteName)" }
        #expect(lost?.vcard.contains("phone edit") == true)
        #expect(try fixture.serverCards()["r"]?.first("REV")?.value ?? "" > serverTime, "the box's edit is dated")
    }

    @Test("an edit beats a deletion on the other side", arguments: TestServerKind.available)
    func deleteVersusEdit(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.putOnServer(vcard("p", "Pia"), as: "p.vcf")
        try fixture.putOnServer(vcard("q", "Quirin"), as: "q.vcf")
        try fixture.sync()
        try fixture.deleteOnServer("p.vcf")
        try fixture.store.upsert(try card("p", "Pia", "NOTE:still here"), reason: "edited on the box")
        try fixture.store.delete(uid: "q", reason: "deleted on the box")
        try fixture.putOnServer(vcard("q", "Quirin", "NOTE:edited on the phone"), as: "q.vcf")
        try fixture.sync()
        let server = try fixture.serverCards()
        #expect(server["p"]?.first("NOTE")?.text == "still here")
        #expect(try fixture.store.contact(uid: "q")?.deleted == false)
        #expect(try fixture.store.contact(uid: "q")?.vcard.contains("edited on the phone") == true)
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test(
        "a server that suddenly lists no contacts deletes nothing until confirmed", arguments: TestServerKind.available)
    func emptyServerGuard(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        for index in 0..<8 { try fixture.putOnServer(vcard("g\(index)", "Guest \(index)"), as: "g\(index).vcf") }
        try fixture.sync()
        #expect(try fixture.store.count() == 8)
        for index in 0..<8 { try fixture.deleteOnServer("g\(index).vcf") }
        let held = try fixture.sync()
        #expect(held.outcome == .deletionsHeld)
        #expect(try fixture.store.count() == 8)
        let confirmed = try fixture.sync(SyncOptions(confirmDeletions: true))
        #expect(confirmed.outcome == .ok)
        #expect(try fixture.store.count() == 0)
    }

    @Test("a 4.0 card with an inline photo keeps its photo through the server", arguments: TestServerKind.available)
    func photoRoundTrip(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        let four = try parsedCard(
            vcard4("photo", "Photo Person", "PHOTO:data:image/jpeg;base64,\(TestPhotos.jpeg)"))
        _ = try fixture.store.importChunk([four])
        #expect(try fixture.sync().counts.uploaded == 1)
        let stored = try #require(try fixture.serverCards()["photo"])
        // What the client writes: 4.0 where the server advertises it (Cyrus), else 3.0.
        #expect(stored.version == (fixture.info.supportedVersions.contains("4.0") ? "4.0" : "3.0"))
        #expect(stored.first("PHOTO")?.value.contains(TestPhotos.jpeg) == true)
        #expect(stored.contentHash == four.contentHash)
        #expect(try fixture.sync().counts == SyncCounts())
    }

    @Test(
        "a card without UID on the server is kept under a stable identity and edited in place",
        arguments: TestServerKind.available)
    func cardWithoutUID(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        let text =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Nobody Uid\r\nN:Uid;Nobody;;;\r\nEMAIL:nouid@example.org\r\nEND:VCARD\r\n"
        let put = try fixture.server.request(
            "PUT", fixture.server.itemURL("no-uid.vcf"), body: text, contentType: "text/vcard; charset=utf-8")
        switch kind {
        case .cyrus:
            // Cyrus refuses a card without UID outright: there is nothing to sync.
            #expect(put.status == 403)
            return
        case .radicale:
            // Radicale refuses it over HTTP (400), and skips one written into its folder ("broken item").
            #expect(put.status == 400)
            return
        case .xandikos:
            #expect((200..<300).contains(put.status), "\(put.status) \(put.body)")
        }
        let first = try fixture.sync()
        #expect(first.outcome == .ok, "\(first.message ?? "") \(first.errors)")
        #expect(first.counts.downloaded == 1)
        var uids: [String] = []
        try fixture.store.forEachContact { uids.append($0.uid) }
        #expect(uids.count == 1)
        let uid = try #require(uids.first)
        #expect(try fixture.store.contact(uid: uid)?.vcard.contains("nouid@example.org") == true)
        #expect(try fixture.sync().counts == SyncCounts(), "the derived identity is stable: no change next time")

        // Edited on the box: the server's item is updated in place, not duplicated.
        var edited = try #require(try fixture.store.contact(uid: uid).map { try parsedCard($0.vcard) })
        edited.properties.append(Property(name: "NOTE", value: "edited on the box"))
        try fixture.store.upsert(edited, reason: "edited on the box")
        let report = try fixture.sync()
        #expect(report.counts.updated == 1)
        let items = try fixture.server.items()
        #expect(items.count == 1)
        #expect(items.first?.href.hasSuffix("/no-uid.vcf") == true)
        #expect(items.first?.vcard.contains("edited on the box") == true)
    }

    @Test(
        "a deletion on the server right after the first upload is seen",
        arguments: TestServerKind.available)
    func deletionAfterFirstUpload(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        _ = try fixture.store.importChunk((0..<20).map { try card("del-\($0)", "Deletable \($0)") })
        let first = try fixture.sync()
        #expect(first.counts.uploaded == 20, "\(first.errors.prefix(3))")
        let victim = try #require(try fixture.server.items().first { $0.vcard.contains("UID:del-") })
        let uid = try #require(try parsedCard(victim.vcard).uid)
        let name = String(victim.href.split(separator: "/").last ?? "")
        try fixture.deleteOnServer(name)
        let second = try fixture.sync()
        let gone = try fixture.store.contact(uid: uid)
        // Xandikos leaves an item created and deleted after the stored token out of the changes: the client
        // looks for the items it created by name.
        #expect(second.counts.deleted == 1)
        #expect(gone?.deleted == true)
        #expect(try fixture.serverCards()[uid] == nil)
    }

    @Test(
        "70 edits on the box go to the server in one pass",
        arguments: TestServerKind.available)
    func manyEditsInOnePass(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.server.seed((0..<70).map { ("e\($0).vcf", vcard("e\($0)", "Editable \($0)")) })
        #expect(try fixture.sync().counts.downloaded == 70)
        for index in 0..<70 {
            try fixture.store.upsert(
                try card("e\(index)", "Editable \(index)", "NOTE:edit \(index)"), reason: "edited on the box")
        }
        let report = try fixture.sync()
        let server = try fixture.serverCards()
        let missing = (0..<70).filter { server["e\($0)"]?.first("NOTE")?.text != "edit \($0)" }
        #expect(report.counts.updated == 70, "\(report.errors.prefix(2))")
        #expect(report.counts.errors == 0)
        #expect(missing.isEmpty, "edits not on the server: \(missing.count)")
    }

    @Test(
        "two server cards with one UID are both kept",
        arguments: TestServerKind.available)
    func duplicateUIDs(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.putOnServer(vcard("twin", "Twin One", "EMAIL:one@example.org"), as: "twin-1.vcf")
        let second = try fixture.server.request(
            "PUT", fixture.server.itemURL("twin-2.vcf"), body: vcard("twin", "Twin Two", "EMAIL:two@example.org"),
            contentType: "text/vcard; charset=utf-8")
        if kind == .radicale {
            // Radicale refuses a UID that another href holds.
            #expect(second.status == 409)
            return
        }
        #expect(second.status == 201, "Xandikos and Cyrus accept one UID at two hrefs")
        let report = try fixture.sync()
        var emails: [String] = []
        try fixture.store.forEachContact { contact in
            for address in ["one@example.org", "two@example.org"] where contact.vcard.contains(address) {
                emails.append(address)
            }
        }
        // Both are kept: the second under a UID derived from its UID and place, and the run notes it.
        #expect(report.notes.contains { $0.contains("twin-1.vcf") && $0.contains("twin-2.vcf") })
        #expect(emails.sorted() == ["one@example.org", "two@example.org"], "report: \(report.counts)")
        #expect(try fixture.server.items().count == 2, "the server keeps both")
    }

    @Test(
        "a card with a big photo (1.2 MB) goes up, comes down to a second box, and an edit there comes back, intact",
        arguments: TestServerKind.available)
    func bigPhoto(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        // 0.9 MB of bytes (a deterministic pattern), 1.2 MB in base64: a phone's photo, spooled on every way (over
        // 64 KiB), and hashed by its digest (over 1 MiB). Radicale's time for a card grows with its square.
        let bytes = (0..<900_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let photo = Data(bytes).base64EncodedString()
        let big = try card("big-photo", "Big Photo", "PHOTO;ENCODING=b;TYPE=JPEG:\(photo)")
        _ = try fixture.store.importChunk([big])
        let report = try fixture.sync()
        #expect(report.counts.uploaded == 1, "\(report.errors)")
        let stored = try #require(try fixture.serverCards()["big-photo"])
        #expect(stored.first("PHOTO")?.value.contains(photo) == true, "the server holds the whole photo")
        #expect(stored.contentHash == big.contentHash)

        let second = try fixture.secondBox()
        let download = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(download.counts.downloaded == 1)
        let copy = try #require(try second.store.contact(uid: "big-photo"))
        #expect(copy.hash == big.contentHash)
        #expect(try parsedCard(copy.vcard).first("PHOTO")?.value.contains(photo) == true)

        // The second box edits it; the first gets the edit with the photo as it was.
        var edited = try parsedCard(copy.vcard)
        edited.properties.append(Property(name: "NOTE", value: "met at the station"))
        _ = try second.store.upsert(edited, reason: "edited", stampingRevision: true)
        let upload = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(upload.counts.serverUpdated == 1, "\(upload.errors)")
        #expect(try fixture.sync().counts.storeUpdated == 1)
        let back = try parsedCard(try #require(try fixture.store.contact(uid: "big-photo")).vcard)
        #expect(back.first("NOTE")?.value == "met at the station")
        #expect(back.first("PHOTO")?.value.contains(photo) == true)
    }

    @Test(
        "a sync token the server does not know falls back to a full listing", arguments: TestServerKind.available)
    func unknownToken(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        try fixture.putOnServer(vcard("t1", "Tom"), as: "t1.vcf")
        try fixture.sync()
        let remote = try #require(try fixture.store.remote(named: fixture.remoteName))
        // A token of the server's own form that it never issued (as after a restore from backup): each refuses it
        // with DAV:valid-sync-token (a foreign one: Radicale and Cyrus 403, Xandikos 412; Docs/servers.md).
        let forged =
            switch kind {
            case .radicale: "http://radicale.org/ns/sync/" + String(repeating: "0", count: 64)
            case .xandikos: String(repeating: "0", count: 40)
            case .cyrus: "data:,1-999999"
            }
        try fixture.store.setSyncToken(forged, remoteID: remote.id)
        try fixture.putOnServer(vcard("t2", "Tina"), as: "t2.vcf")
        try fixture.deleteOnServer("t1.vcf")
        let reportsBefore = fixture.http.requestCounts["REPORT"] ?? 0
        let propfindsBefore = fixture.http.requestCounts["PROPFIND"] ?? 0
        let report = try fixture.sync()
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors)")
        // Refused (a REPORT), listed afresh (the sync-token and the members: two PROPFINDs), then a multiget of t2.
        #expect((fixture.http.requestCounts["REPORT"] ?? 0) - reportsBefore == 2)
        #expect((fixture.http.requestCounts["PROPFIND"] ?? 0) - propfindsBefore == 2)
        #expect(try fixture.store.contact(uid: "t2") != nil)
        #expect(try fixture.store.contact(uid: "t1")?.deleted == true)
        #expect(try fixture.store.remote(named: fixture.remoteName)?.syncToken != forged)
        #expect(try fixture.localContents() == fixture.serverContents())
    }
}

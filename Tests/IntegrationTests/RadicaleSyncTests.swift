import CardDAV
import ContactStore
import Foundation
import Sync
import TestSupport
import Testing
import VCard

/// The sync engine against a real Radicale, started on 127.0.0.1 for each test and stopped by PID.
@Suite("Sync with a real CardDAV server (Radicale)", .serialized)
struct RadicaleSyncTests {
    @Test("a first sync uploads the store's contacts and downloads the server's")
    func firstSyncEachWay() throws {
        let fixture = try RadicaleSyncFixture()
        _ = try fixture.store.importChunk([try card("local-1", "Lena Local"), try card("local-2", "Lars Local")])
        try fixture.putOnServer(vcard("server-1", "Sara Server", "TEL;TYPE=CELL:+49 170 5550100"), as: "server-1.vcf")
        let report = try fixture.sync()
        #expect(report.outcome == .ok)
        #expect(report.counts.uploaded == 2)
        #expect(report.counts.downloaded == 1)
        #expect(try fixture.localContents() == fixture.serverContents())
        #expect(try fixture.serverCards()["local-1"]?.displayName == "Lena Local")
        #expect(try fixture.store.contact(uid: "server-1")?.vcard.contains("+49 170 5550100") == true)

        // Nothing changed: one request, nothing written.
        let before = fixture.http.requestCounts.values.reduce(0, +)
        let quiet = try fixture.sync()
        #expect(quiet.counts == SyncCounts())
        #expect(fixture.http.requestCounts.values.reduce(0, +) - before == 1)
    }

    @Test("edits and deletions on each side reach the other")
    func editsAndDeletions() throws {
        let fixture = try RadicaleSyncFixture()
        _ = try fixture.store.importChunk([try card("a", "Anna"), try card("b", "Bert")])
        try fixture.putOnServer(vcard("c", "Cleo"), as: "c.vcf")
        try fixture.putOnServer(vcard("d", "Dirk"), as: "d.vcf")
        try fixture.sync()

        try fixture.store.upsert(try card("a", "Anna", "NOTE:new number"), reason: "edited on the box")
        try fixture.store.delete(uid: "b", reason: "deleted on the box")
        try fixture.putOnServer(vcard("c", "Cleo", "EMAIL:cleo@example.org"), as: "c.vcf")
        try fixture.deleteOnServer("d.vcf")
        let report = try fixture.sync()
        #expect(report.counts.updated == 2)
        #expect(report.counts.deleted == 2)
        let server = try fixture.serverCards()
        #expect(server["a"]?.first("NOTE")?.text == "new number")
        #expect(server["b"] == nil)
        #expect(try fixture.store.contact(uid: "c")?.vcard.contains("cleo@example.org") == true)
        #expect(try fixture.store.contact(uid: "d")?.deleted == true)
        #expect(try fixture.store.history(uid: "d").first?.reason == "deleted on radicale")
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test("both sides editing one contact: the newest wins everywhere, the other version is in history")
    func bothSidesEdit() throws {
        let fixture = try RadicaleSyncFixture()
        try fixture.putOnServer(vcard("x", "Xaver"), as: "x.vcf")
        try fixture.sync()
        try fixture.store.upsert(
            try card("x", "Xaver", "NOTE:box edit", "REV:2024-01-01T00:00:00Z"), reason: "edited on the box")
        try fixture.putOnServer(vcard("x", "Xaver", "NOTE:phone edit", "REV:2025-01-01T00:00:00Z"), as: "x.vcf")
        let report = try fixture.sync()
        #expect(report.counts.conflicts == 1)
        #expect(try fixture.serverCards()["x"]?.first("NOTE")?.text == "phone edit")
        #expect(try fixture.localContents() == fixture.serverContents())
        let lost = try fixture.store.history(uid: "x").first { $0.reason == "conflict-lost:radicale" }
        #expect(lost?.vcard.contains("box edit") == true)
    }

    @Test("an edit beats a deletion on the other side")
    func deleteVersusEdit() throws {
        let fixture = try RadicaleSyncFixture()
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
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test("a sync token the server no longer knows falls back to a full listing")
    func invalidatedToken() throws {
        let fixture = try RadicaleSyncFixture()
        try fixture.putOnServer(vcard("t1", "Tom"), as: "t1.vcf")
        try fixture.sync()
        let token = try #require(try fixture.store.remote(named: "radicale")?.syncToken)
        // The server forgets its token history (Radicale keeps it in the collection's cache folder).
        let cache = fixture.server.collectionFolder() + "/.Radicale.cache/sync-token"
        #expect(FileManager.default.fileExists(atPath: cache))
        try FileManager.default.removeItem(atPath: cache)
        try fixture.putOnServer(vcard("t2", "Tina"), as: "t2.vcf")
        try fixture.deleteOnServer("t1.vcf")
        let reportsBefore = fixture.http.requestCounts["REPORT"] ?? 0
        let report = try fixture.sync()
        #expect(report.outcome == .ok, "\(report.message ?? "")")
        // The old token was refused (403 DAV:valid-sync-token) and the book listed again from scratch.
        #expect((fixture.http.requestCounts["REPORT"] ?? 0) - reportsBefore >= 3)
        #expect(try fixture.store.contact(uid: "t2") != nil)
        #expect(try fixture.store.contact(uid: "t1")?.deleted == true)
        #expect(try fixture.store.remote(named: "radicale")?.syncToken != token)
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test("a card the server refuses is reported alone with its reason, and the others are synced")
    func rejectedCard() throws {
        let fixture = try RadicaleSyncFixture()
        // Radicale decodes base64 photos and answers 400 to a broken one.
        _ = try fixture.store.importChunk([
            try card("fine", "Fine"), try card("broken", "Broken Photo", "PHOTO;ENCODING=b;TYPE=JPEG:!!!not base64!!!"),
            try card("fine-too", "Fine Too"),
        ])
        let report = try fixture.sync()
        #expect(report.counts.errors == 0)
        #expect(report.refused.count == 1)
        #expect(report.refused.first?.contains("broken") == true)
        #expect(report.refused.first?.contains("400") == true)
        #expect(Set(try fixture.serverCards().keys) == ["fine", "fine-too"])
        // Fixed locally, it goes on the next run.
        try fixture.store.upsert(try card("broken", "Broken Photo", "NOTE:photo removed"), reason: "fixed")
        let again = try fixture.sync()
        #expect(again.counts.errors == 0)
        #expect(Set(try fixture.serverCards().keys) == ["fine", "broken", "fine-too"])
    }

    @Test("the server going down mid-run fails the run; the next run completes with no duplicate")
    func serverDownMidRun() throws {
        let fixture = try RadicaleSyncFixture()
        _ = try fixture.store.importChunk((0..<60).map { try card("m\($0)", "Member \($0)") })
        let flaky = StopsServer(fixture.book, server: fixture.server, afterCreates: 25)
        let failed = try fixture.sync(book: flaky)
        #expect(failed.outcome == .failed)
        #expect(try fixture.store.recentSyncRuns(limit: 1).first?.outcome == .failed)
        try fixture.server.start()
        let resumed = try fixture.sync()
        #expect(resumed.outcome == .ok)
        let server = try fixture.serverCards()
        #expect(server.count == 60)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.server.collectionFolder())
        #expect(files.filter { $0.hasSuffix(".vcf") }.count == 60)
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test("a server that suddenly lists no contacts deletes nothing until confirmed")
    func emptyServerGuard() throws {
        let fixture = try RadicaleSyncFixture()
        for index in 0..<8 { try fixture.putOnServer(vcard("g\(index)", "Guest \(index)"), as: "g\(index).vcf") }
        try fixture.sync()
        for index in 0..<8 { try fixture.deleteOnServer("g\(index).vcf") }
        let held = try fixture.sync()
        #expect(held.outcome == .needsConfirmation)
        #expect(try fixture.store.count() == 8)
        let confirmed = try fixture.sync(SyncOptions(confirmDeletions: true))
        #expect(confirmed.outcome == .ok)
        #expect(try fixture.store.count() == 0)
    }

    @Test("a 4.0 card with an inline photo is sent as 3.0 and its photo survives the round trip")
    func photoRoundTrip() throws {
        let fixture = try RadicaleSyncFixture()
        let photo =
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q=="
        var reader = CardReader(
            text:
                "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:photo\r\nFN:Photo Person\r\nPHOTO:data:image/jpeg;base64,\(photo)\r\nEND:VCARD\r\n"
        )
        let four = try #require(try reader.next()?.get().card)
        _ = try fixture.store.importChunk([four])
        try fixture.sync()
        let stored = try #require(try fixture.serverCards()["photo"])
        #expect(stored.version == "3.0")
        #expect(stored.first("PHOTO")?.value == photo)
        #expect(stored.contentHash == four.contentHash)
        #expect(try fixture.sync().counts == SyncCounts())
    }
}

/// Passes everything to the real address book, and stops the server after a number of creates: the network
/// drop in the middle of a run.
final class StopsServer: AddressBook {
    let inner: AddressBook
    let server: TestSupport.RadicaleServer
    var remaining: Int

    init(_ inner: AddressBook, server: TestSupport.RadicaleServer, afterCreates: Int) {
        self.inner = inner
        self.server = server
        self.remaining = afterCreates
    }

    var name: String { inner.name }
    var writeVersion: String { inner.writeVersion }

    func changes(
        since token: String?, changed: (RemoteEntry) throws -> Void, removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        try inner.changes(since: token, changed: changed, removed: removed)
    }

    func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws {
        try inner.fetch(hrefs, body)
    }

    func hrefForNew(_ card: Card) -> String {
        inner.hrefForNew(card)
    }

    func create(_ card: Card) throws -> RemoteEntry {
        remaining -= 1
        if remaining == 0 { server.stop() }
        return try inner.create(card)
    }

    func update(href: String, etag: String, with card: Card) throws -> String {
        try inner.update(href: href, etag: etag, with: card)
    }

    func delete(href: String, etag: String) throws {
        try inner.delete(href: href, etag: etag)
    }
}

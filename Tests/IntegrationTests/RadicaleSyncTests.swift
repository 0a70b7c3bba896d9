import CardDAV
import ContactStore
import Foundation
import Sync
import TestSupport
import Testing
import VCard

/// The sync engine against a real Radicale, started on 127.0.0.1 for each test and stopped by PID: the scenarios
/// that need Radicale's storage or its restart. The scenarios every server runs are in ServerSyncTests.
@Suite(
    "Sync with a real CardDAV server (Radicale)", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct RadicaleSyncTests {
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
        let propfindsBefore = fixture.http.requestCounts["PROPFIND"] ?? 0
        let report = try fixture.sync()
        #expect(report.outcome == .ok, "\(report.message ?? "")")
        // The old token was refused (403 DAV:valid-sync-token, one REPORT) and the book listed again from scratch:
        // its new sync-token, then a PROPFIND of every member, then the multiget of t2 (a second REPORT).
        #expect((fixture.http.requestCounts["REPORT"] ?? 0) - reportsBefore == 2)
        #expect((fixture.http.requestCounts["PROPFIND"] ?? 0) - propfindsBefore == 2)
        #expect(try fixture.store.contact(uid: "t2") != nil)
        #expect(try fixture.store.contact(uid: "t1")?.deleted == true)
        #expect(try fixture.store.remote(named: "radicale")?.syncToken != token)
        #expect(try fixture.localContents() == fixture.serverContents())
    }

    @Test("a first download of cards with large photos brings each intact")
    func largePhotos() throws {
        let fixture = try RadicaleSyncFixture()
        // Photos of 600 KB of base64 (zeros) each, folded: past CardText.spoolThreshold, so spooled on the way, and
        // handed on by the first download's query without the card, then fetched alone.
        let photo = String(repeating: "AAAA", count: 150_000)
        func folded(_ line: String) -> String {
            let bytes = Array(line.utf8)
            return stride(from: 0, to: bytes.count, by: 74).map { start in
                String(decoding: bytes[start..<min(start + 74, bytes.count)], as: UTF8.self)
            }.joined(separator: "\r\n ")
        }
        var cards = (0..<5).map { ("small-\($0).vcf", vcard("small-\($0)", "Small \($0)")) }
        cards += (0..<3).map {
            ("large-\($0).vcf", vcard("large-\($0)", "Large \($0)", folded("PHOTO;ENCODING=b;TYPE=JPEG:" + photo)))
        }
        try fixture.server.seedCards(cards)

        let report = try fixture.sync()
        #expect(report.counts.downloaded == 8, "\(report.outcome) \(report.message ?? "")")
        #expect(report.counts.errors == 0, "\(report.errors)")
        for index in 0..<3 {
            let stored = try #require(try fixture.store.contact(uid: "large-\(index)"))
            var reader = CardReader(text: stored.vcard)
            let card = try #require(try reader.next()?.get().card)
            #expect(card.first("PHOTO")?.value == photo)
        }
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
        since token: String?, withCards: Bool, changed: (RemoteEntry) throws -> Void,
        removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        try inner.changes(since: token, withCards: withCards, changed: changed, removed: removed)
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

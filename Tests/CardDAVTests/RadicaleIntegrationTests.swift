import HTTP
import Logging
import TestSupport
import Testing
import VCard

@testable import CardDAV

#if canImport(Glibc)
    import Glibc
#endif

/// A Radicale server with one empty address book "contacts", and a client logged in as alice.
final class RadicaleFixture {
    let server: RadicaleServer
    let client: CardDAVClient
    let book: String

    init(password: String = RadicaleServer.password) throws {
        server = try RadicaleServer()
        try server.createAddressBook()
        book = server.addressBookURL()
        let http = try HTTPClient(
            HTTPConfiguration(credentials: Credentials(username: RadicaleServer.username, password: password)),
            logger: Logger(label: "test.http"))
        client = CardDAVClient(http: http, logger: Logger(label: "test.carddav"))
    }

    func vcard(uid: String, name: String, note: String? = nil) -> String {
        var lines = ["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"]
        if let note { lines.append("NOTE:\(note)") }
        return (lines + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
    }

    func create(uid: String, name: String) throws -> (url: String, etag: String) {
        let url = CardDAVClient.itemURL(bookURL: book, uid: uid)
        let result = try client.put(url: url, vcard: vcard(uid: uid, name: name), ifMatch: nil, ifNoneMatchAny: true)
        return (url, try #require(result.etag))
    }

    func sync(from token: String?) throws -> (changes: [SyncChange], token: String) {
        var changes: [SyncChange] = []
        // Without the sizes, which the listing tests check: the changes compare with what the tests made.
        let result = try client.syncCollection(bookURL: book, token: token) { change in
            if case .changed(let href, let etag, _) = change {
                changes.append(.changed(href: href, etag: etag))
            } else {
                changes.append(change)
            }
        }
        return (changes, result.token)
    }
}

/// What only Radicale does, or what needs its storage; every server's scenarios are in ServerIntegrationTests.
@Suite(
    "CardDAV against a real Radicale",
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct RadicaleIntegrationTests {
    @Test("Radicale's quirk: a first sync-collection also lists long-deleted items as removed")
    func firstSyncListsDeleted() throws {
        let fixture = try RadicaleFixture()
        let a = try fixture.create(uid: "sync-a", name: "A")
        let b = try fixture.create(uid: "sync-b", name: "B")
        #expect(try fixture.server.request("DELETE", b.url).status == 200)
        let again = try fixture.sync(from: nil)
        #expect(again.changes.contains(.removed(href: DAVURL.path(of: b.url))))
        #expect(again.changes.contains(.changed(href: DAVURL.path(of: a.url), etag: a.etag)))
    }

    @Test("The listing gives each item's size (getcontentlength); Radicale's sync-collection gives none")
    func listedSizes() throws {
        let fixture = try RadicaleFixture()
        try fixture.server.seedCards([("a.vcf", fixture.vcard(uid: "a", name: "A"))])
        var listed: [Int?] = []
        try fixture.client.list(bookURL: fixture.book) { _, _, size in listed.append(size) }
        var synced: [Int?] = []
        _ = try fixture.client.syncCollection(bookURL: fixture.book, token: nil) { change in
            if case .changed(_, _, let size) = change { synced.append(size) }
        }
        #expect(listed.count == 1 && (listed.first.flatMap { $0 } ?? 0) > 0)
        // Radicale 3.9 answers only getetag in a REPORT: its deltas are paged by the count learned (`pageLimit`).
        #expect(synced == [nil])
    }
}

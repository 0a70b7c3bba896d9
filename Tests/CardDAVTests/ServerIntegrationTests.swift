import HTTP
import Logging
import TestSupport
import Testing
import VCard

@testable import CardDAV

/// A real CardDAV server of one kind with its empty address book, and a client logged in as its user.
final class ServerFixture {
    let server: any CardDAVTestServer
    let client: CardDAVClient
    let book: String
    /// The address book's path, as hrefs name it.
    var bookPath: String { DAVURL.path(of: book) }

    init(_ kind: TestServerKind, password: String? = nil) throws {
        server = try kind.start()
        book = server.addressBookURL
        let http = try HTTPClient(
            HTTPConfiguration(
                credentials: Credentials(username: server.username, password: password ?? server.password)),
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
        return (url, try #require(result.etag, "\(server.name) returned no ETag on PUT"))
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

/// The CardDAV client against each real server (Radicale 3.9, Xandikos 0.4, Cyrus IMAP 3.6), started on 127.0.0.1
/// for each test and stopped by PID. Radicale-only behaviour is in RadicaleIntegrationTests.
@Suite("CardDAV against each real server", .serialized, .timeLimit(.minutes(10)))
struct ServerIntegrationTests {
    @Test("Discovery from the bare server URL finds the address book", arguments: TestServerKind.available)
    func discovery(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        let books = try fixture.client.discover(fixture.server.baseURL)
        // Xandikos's --defaults also makes a calendar: discovery lists address books only.
        #expect(books.count == 1, "\(books.map(\.url))")
        let book = try #require(books.first)
        #expect(DAVURL.sameResource(book.url, fixture.book))
        #expect(book.supportsSyncCollection)
        switch kind {
        case .radicale: #expect(book.supportedVersions == ["3.0"])
        // Xandikos 0.4 lists its versions in a `content-type` element, not RFC 6352's `address-data-type`.
        case .xandikos: #expect(!book.supportedVersions.contains("4.0"))
        case .cyrus: #expect(book.supportedVersions.contains("3.0") && book.supportedVersions.contains("4.0"))
        }
        #expect(try fixture.client.discover(fixture.book).map(\.url) == [book.url], "a book URL finds itself")
    }

    @Test(
        "Create with If-None-Match: * succeeds once, then fails the precondition", arguments: TestServerKind.available)
    func createTwice(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        let (url, etag) = try fixture.create(uid: "create-1", name: "Ann")
        #expect(etag.hasPrefix("\""))
        let error = try #require(throws: CardDAVError.self) {
            try fixture.client.put(
                url: url, vcard: fixture.vcard(uid: "create-1", name: "Ann 2"), ifMatch: nil, ifNoneMatchAny: true)
        }
        #expect(error.kind == .preconditionFailed)
        #expect(error.message.hasPrefix("PUT \(DAVURL.path(of: url)): 412"), "\(error.message)")
        #expect(try fixture.client.get(url: url).text.contains("FN:Ann\r\n"), "the first card stays")
    }

    @Test(
        "Updates and deletes with a stale ETag fail; with the current one they succeed",
        arguments: TestServerKind.available)
    func staleETags(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        let (url, first) = try fixture.create(uid: "upd-1", name: "Bob")
        let updated = try fixture.client.put(
            url: url, vcard: fixture.vcard(uid: "upd-1", name: "Bobby"), ifMatch: first, ifNoneMatchAny: false)
        let second = try #require(updated.etag)
        #expect(second != first)
        let stale = try #require(throws: CardDAVError.self) {
            try fixture.client.put(
                url: url, vcard: fixture.vcard(uid: "upd-1", name: "Robert"), ifMatch: first, ifNoneMatchAny: false)
        }
        #expect(stale.kind == .preconditionFailed)
        let fetched = try fixture.client.get(url: url)
        #expect(fetched.etag == second)
        #expect(fetched.text.contains("FN:Bobby"))
        #expect(throws: CardDAVError.self) { try fixture.client.delete(url: url, ifMatch: first) }
        try fixture.client.delete(url: url, ifMatch: second)
        let gone = try #require(throws: CardDAVError.self) { try fixture.client.get(url: url) }
        #expect(gone.kind == .notFound)
    }

    @Test(
        "sync-collection gives everything first, then the changes, deletions and creations since the token",
        arguments: TestServerKind.available)
    func syncCollection(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        let a = try fixture.create(uid: "sync-a", name: "A")
        let b = try fixture.create(uid: "sync-b", name: "B")
        let initial = try fixture.sync(from: nil)
        let hrefA = DAVURL.path(of: a.url)
        let hrefB = DAVURL.path(of: b.url)
        #expect(
            Set(initial.changes) == [.changed(href: hrefA, etag: a.etag), .changed(href: hrefB, etag: b.etag)])
        #expect(try fixture.sync(from: initial.token).changes.isEmpty, "nothing changed: nothing listed")

        // Changes made by someone else, straight on the server.
        let changed = try fixture.server.request(
            "PUT", a.url, body: fixture.vcard(uid: "sync-a", name: "A2"), contentType: "text/vcard")
        #expect(changed.status == 201 || changed.status == 204)
        #expect((200..<300).contains(try fixture.server.request("DELETE", b.url).status))
        let c = try fixture.create(uid: "sync-c", name: "C")

        let delta = try fixture.sync(from: initial.token)
        let etagA = try #require(fixture.client.get(url: a.url).etag)
        #expect(
            Set(delta.changes) == [
                .changed(href: hrefA, etag: etagA), .removed(href: hrefB),
                .changed(href: DAVURL.path(of: c.url), etag: c.etag),
            ])
        #expect(delta.token != initial.token)
    }

    @Test("A bogus sync token is reported as invalid", arguments: TestServerKind.available)
    func bogusToken(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        // Radicale answers 403, Xandikos 412, Cyrus 403, each with DAV:valid-sync-token.
        let error = try #require(throws: CardDAVError.self) {
            try fixture.sync(from: "http://example.org/ns/sync/0000bogus")
        }
        #expect(error.kind == .invalidSyncToken, "\(error.message)")
    }

    @Test(
        "PROPFIND lists every item with the ETag sync reports, and not the collection",
        arguments: TestServerKind.available)
    func listing(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        var expected: [String: String] = [:]
        for index in 0..<5 {
            let (url, etag) = try fixture.create(uid: "list-\(index)", name: "L\(index)")
            expected[DAVURL.path(of: url)] = etag
        }
        var listed: [String: String] = [:]
        try fixture.client.list(bookURL: fixture.book) { href, etag, _ in listed[href] = etag }
        #expect(listed == expected)
    }

    @Test(
        "Multiget of 100 seeded cards returns them all, and a missing href as missing",
        arguments: TestServerKind.available)
    func multigetHundred(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind)
        let cards = (0..<100).map { ("m\($0).vcf", fixture.vcard(uid: "m\($0)", name: "Person \($0)")) }
        try fixture.server.seed(cards)
        var hrefs: [String] = []
        try fixture.client.list(bookURL: fixture.book) { href, _, _ in hrefs.append(href) }
        #expect(hrefs.count == 100)
        var found: [String: String] = [:]
        var missing: [String] = []
        try fixture.client.multiget(bookURL: fixture.book, hrefs: hrefs) { item in
            if let text = item.vcard {
                var reader = CardReader(text: text)
                if case .success(let parsed)? = reader.next() { found[item.href] = parsed.card.uid }
            } else if item.isMissing {
                missing.append(item.href)
            }
        }
        #expect(found.count == 100)
        #expect(found[fixture.bookPath + "m42.vcf"] == "m42")

        try fixture.client.multiget(
            bookURL: fixture.book, hrefs: [fixture.bookPath + "m1.vcf", fixture.bookPath + "no.vcf"]
        ) {
            if $0.isMissing { missing.append($0.href) }
        }
        #expect(missing == [fixture.bookPath + "no.vcf"])
    }

    @Test(
        "A wrong password is unauthorized",
        arguments: TestServerKind.available.filter { $0 != .xandikos })  // Xandikos runs without a login
    func wrongPassword(kind: TestServerKind) throws {
        let fixture = try ServerFixture(kind, password: "wrong")
        let error = try #require(throws: CardDAVError.self) { try fixture.client.discover(fixture.server.baseURL) }
        #expect(error.kind == .unauthorized)
        #expect(!error.message.contains("wrong"))
        let listing = try #require(throws: CardDAVError.self) {
            try fixture.client.list(bookURL: fixture.book) { _, _, _ in }
        }
        #expect(listing.kind == .unauthorized)
    }
}

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
        let result = try client.syncCollection(bookURL: book, token: token) { changes.append($0) }
        return (changes, result.token)
    }
}

@Suite("CardDAV against a real Radicale", .enabled(if: radicaleIsInstalled()))
struct RadicaleIntegrationTests {
    @Test("Discovery from the bare server URL finds the address book")
    func discovery() throws {
        let fixture = try RadicaleFixture()
        let books = try fixture.client.discover(fixture.server.baseURL)
        #expect(books.count == 1)
        let book = try #require(books.first)
        #expect(DAVURL.sameResource(book.url, fixture.book))
        #expect(book.supportsSyncCollection)
        #expect(book.supportedVersions == ["3.0"])
        #expect(book.ctag != nil)
        #expect(try fixture.client.discover(fixture.book).map(\.url) == [book.url], "a book URL finds itself")
    }

    @Test("Create with If-None-Match: * succeeds once, then fails the precondition")
    func createTwice() throws {
        let fixture = try RadicaleFixture()
        let (url, etag) = try fixture.create(uid: "create-1", name: "Ann")
        #expect(etag.hasPrefix("\""))
        let error = try #require(throws: CardDAVError.self) {
            try fixture.client.put(
                url: url, vcard: fixture.vcard(uid: "create-1", name: "Ann 2"), ifMatch: nil, ifNoneMatchAny: true)
        }
        #expect(error.kind == .preconditionFailed)
        #expect(error.message.hasPrefix("PUT /alice/contacts/create-1.vcf: 412"))
    }

    @Test("Updates and deletes with a stale ETag fail; with the current one they succeed")
    func staleETags() throws {
        let fixture = try RadicaleFixture()
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

    @Test("sync-collection gives everything first, then the changes, deletions and creations since the token")
    func syncCollection() throws {
        let fixture = try RadicaleFixture()
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
        #expect(try fixture.server.request("DELETE", b.url).status == 200)
        let c = try fixture.create(uid: "sync-c", name: "C")

        let delta = try fixture.sync(from: initial.token)
        let etagA = try #require(fixture.client.get(url: a.url).etag)
        #expect(
            Set(delta.changes) == [
                .changed(href: hrefA, etag: etagA), .removed(href: hrefB),
                .changed(href: DAVURL.path(of: c.url), etag: c.etag),
            ])
        #expect(delta.token != initial.token)

        // Radicale's quirk: a first sync also lists the deleted item as removed.
        let again = try fixture.sync(from: nil)
        #expect(again.changes.contains(.removed(href: hrefB)))
    }

    @Test("A bogus sync token is reported as invalid")
    func bogusToken() throws {
        let fixture = try RadicaleFixture()
        let error = try #require(throws: CardDAVError.self) {
            try fixture.sync(from: "http://radicale.org/ns/sync/0000bogus")
        }
        #expect(error.kind == .invalidSyncToken)
    }

    @Test("PROPFIND lists every item with the ETag sync reports, and not the collection")
    func listing() throws {
        let fixture = try RadicaleFixture()
        var expected: [String: String] = [:]
        for index in 0..<5 {
            let (url, etag) = try fixture.create(uid: "list-\(index)", name: "L\(index)")
            expected[DAVURL.path(of: url)] = etag
        }
        var listed: [String: String] = [:]
        try fixture.client.list(bookURL: fixture.book) { href, etag in listed[href] = etag }
        #expect(listed == expected)
    }

    @Test("Multiget of 100 seeded cards returns them all, and a missing href as missing")
    func multigetHundred() throws {
        let fixture = try RadicaleFixture()
        let cards = (0..<100).map { ("m\($0).vcf", fixture.vcard(uid: "m\($0)", name: "Person \($0)")) }
        try fixture.server.seedCards(cards)
        var hrefs: [String] = []
        try fixture.client.list(bookURL: fixture.book) { href, _ in hrefs.append(href) }
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
        #expect(found["/alice/contacts/m42.vcf"] == "m42")

        try fixture.client.multiget(bookURL: fixture.book, hrefs: ["/alice/contacts/m1.vcf", "/alice/contacts/no.vcf"])
        {
            if $0.isMissing { missing.append($0.href) }
        }
        #expect(missing == ["/alice/contacts/no.vcf"])
    }

    @Test("A card over 2 MiB is rejected alone by the parser cap; the others in the multiget parse")
    func oversizedCard() throws {
        let fixture = try RadicaleFixture()
        let big = fixture.vcard(uid: "big", name: "Big", note: String(repeating: "x", count: 3 << 20))
        try fixture.server.seedCards([
            ("a.vcf", fixture.vcard(uid: "a", name: "A")), ("big.vcf", big),
            ("z.vcf", fixture.vcard(uid: "z", name: "Z")),
        ])
        var outcomes: [String: String] = [:]
        let hrefs = ["/alice/contacts/a.vcf", "/alice/contacts/big.vcf", "/alice/contacts/z.vcf"]
        try fixture.client.multiget(bookURL: fixture.book, hrefs: hrefs) { item in
            switch item.outcome {
            case .card: outcomes[item.href] = "card"
            case .missing: outcomes[item.href] = "missing"
            case .failed(let error): outcomes[item.href] = "failed: \(error.message)"
            }
        }
        #expect(outcomes["/alice/contacts/a.vcf"] == "card")
        #expect(outcomes["/alice/contacts/z.vcf"] == "card")
        #expect(outcomes["/alice/contacts/big.vcf"]?.contains("larger than 2 MiB") == true)
    }

    @Test("A wrong password is unauthorized")
    func wrongPassword() throws {
        let fixture = try RadicaleFixture(password: "wrong")
        let error = try #require(throws: CardDAVError.self) { try fixture.client.discover(fixture.server.baseURL) }
        #expect(error.kind == .unauthorized)
        #expect(!error.message.contains("wrong"))
        let listing = try #require(throws: CardDAVError.self) {
            try fixture.client.list(bookURL: fixture.book) { _, _ in }
        }
        #expect(listing.kind == .unauthorized)
    }
}

/// The integration tests need the virtualenv that `Deploy/test.sh` creates; without it they are skipped.
func radicaleIsInstalled() -> Bool {
    access(repositoryRoot + "/.venv/bin/python", X_OK) == 0
}

import HTTP
import Testing

@testable import CardDAV

@Suite("CardDAV client on canned answers")
struct CardDAVClientTests {
    let book = "https://cloud.example/remote.php/dav/addressbooks/users/alice/contacts/"

    @Test("Discovery goes from the server URL through the principal and home set to the books")
    func discoveryRadicaleShape() throws {
        let (client, transport) = makeClient([
            .init(status: 207, body: RadicaleFixtures.rootPropfind),
            .init(status: 207, body: RadicaleFixtures.principalPropfind),
            .init(status: 207, body: RadicaleFixtures.homeListing),
        ])
        let books = try client.discover("http://127.0.0.1:5232/")
        #expect(
            books == [
                AddressBookInfo(
                    url: "http://127.0.0.1:5232/alice/book/", displayName: "Family", supportsSyncCollection: true,
                    supportedVersions: ["3.0"])
            ])
        #expect(
            transport.requests.map(\.url) == [
                "http://127.0.0.1:5232/", "http://127.0.0.1:5232/alice/", "http://127.0.0.1:5232/alice/",
            ])
        #expect(transport.header("Depth", of: 2) == "1")
    }

    @Test("Discovery tries the well-known URL when the server root is no collection, and resolves absolute hrefs")
    func discoveryWellKnown() throws {
        let (client, transport) = makeClient([
            .init(status: 404, body: "<html>not here</html>"),
            .init(status: 207, body: ICloudFixtures.principal, url: "https://contacts.icloud.com/"),
            .init(status: 207, body: ICloudFixtures.homeSet, url: "https://contacts.icloud.com/1234567/principal/"),
            .init(
                status: 207, body: SabreDAVFixtures.addressBookHome,
                url: "https://p42-contacts.icloud.com:443/1234567/carddavhome/"),
        ])
        let books = try client.discover("https://contacts.icloud.com/")
        #expect(transport.requests[1].url == "https://contacts.icloud.com/.well-known/carddav")
        #expect(transport.requests[2].url == "https://contacts.icloud.com/1234567/principal/")
        #expect(transport.requests[3].url == "https://p42-contacts.icloud.com:443/1234567/carddavhome/")
        #expect(books.count == 1)
        #expect(books[0].url == "https://p42-contacts.icloud.com:443/remote.php/dav/addressbooks/users/alice/contacts/")
        #expect(books[0].supportedVersions == ["3.0", "4.0"])
    }

    @Test("Discovery never follows a principal or home set the server names on another site or port")
    func discoveryStaysWithTheOrigin() throws {
        for elsewhere in ["https://evil.example/alice/", "http://127.0.0.1:6666/alice/"] {
            let root = RadicaleFixtures.rootPropfind.replacing(
                "<current-user-principal><href>/alice/</href>",
                with: "<current-user-principal><href>\(elsewhere)</href>")
            #expect(root != RadicaleFixtures.rootPropfind)
            let (client, transport) = makeClient([.init(status: 207, body: root), .init(status: 404, body: "")])
            let error = #expect(throws: CardDAVError.self) { try client.discover("http://127.0.0.1:5232/") }
            #expect(error?.kind == .notFound)
            #expect(!transport.requests.contains { $0.url.hasPrefix(elsewhere) })
        }
    }

    @Test("Discovery of an address book URL gives that book alone")
    func discoveryOfBook() throws {
        let own = RadicaleFixtures.homeListing.replacing("<href>/alice/</href>", with: "<href>/elsewhere/</href>")
        let (client, _) = makeClient([.init(status: 207, body: own)])
        let books = try client.discover("http://h/alice/book/")
        #expect(books.map(\.url) == ["http://h/alice/book/"])
    }

    @Test("Discovery stops at a wrong password instead of trying other URLs")
    func discoveryUnauthorized() throws {
        let (client, transport) = makeClient([.init(status: 401, body: "")])
        let error = try #require(throws: CardDAVError.self) { try client.discover("http://h/") }
        #expect(error.kind == .unauthorized)
        #expect(transport.requests.count == 1)
    }

    @Test("A truncated sync report is followed with the new token until complete")
    func syncFollowsTruncation() throws {
        let (client, transport) = makeClient([
            .init(status: 207, body: SabreDAVFixtures.truncatedSync),
            .init(status: 207, body: SabreDAVFixtures.syncRest),
        ])
        var changes: [SyncChange] = []
        let result = try client.syncCollection(bookURL: book, token: "http://sabre.io/ns/sync/1") { changes.append($0) }
        #expect(
            changes == [
                .changed(href: "/remote.php/dav/addressbooks/users/alice/contacts/a.vcf", etag: #"W/"weak-1""#),
                .changed(href: "/remote.php/dav/addressbooks/users/alice/contacts/b.vcf", etag: #""b-2"-gzip"#),
                .removed(href: "/remote.php/dav/addressbooks/users/alice/contacts/c.vcf"),
            ])
        #expect(result == SyncCollectionResult(token: "http://sabre.io/ns/sync/9", requests: 2, changed: 2, removed: 1))
        #expect(transport.bodies[0].contains("<D:sync-token>http://sabre.io/ns/sync/1</D:sync-token>"))
        #expect(transport.bodies[1].contains("<D:sync-token>http://sabre.io/ns/sync/7</D:sync-token>"))
        #expect(transport.bodies[0].contains("<D:sync-level>1</D:sync-level>"))
    }

    @Test("A truncation marker with an unchanged token is an error, not a loop")
    func truncationWithoutProgress() throws {
        let (client, _) = makeClient([.init(status: 207, body: SabreDAVFixtures.truncatedSync)])
        let error = try #require(throws: CardDAVError.self) {
            try client.syncCollection(bookURL: book, token: "http://sabre.io/ns/sync/7") { _ in }
        }
        #expect(error.kind == .malformedResponse)
    }

    @Test("A server that truncates with a fresh token each time but lists nothing ends after one request, not 10,000")
    func truncationWithFreshTokensAndNothingListed() throws {
        let empty = { (token: Int) in
            """
            <?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response>\
            <d:href>/remote.php/dav/addressbooks/users/alice/contacts/</d:href>\
            <d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response>\
            <d:sync-token>http://sabre.io/ns/sync/\(token)</d:sync-token></d:multistatus>
            """
        }
        let (client, transport) = makeClient((1...5).map { .init(status: 207, body: empty($0)) })
        let error = try #require(throws: CardDAVError.self) {
            try client.syncCollection(bookURL: book, token: nil) { _ in }
        }
        #expect(error.kind == .malformedResponse)
        #expect(error.message.contains("lists nothing"))
        #expect(transport.requests.count == 1)
    }

    @Test("An invalid token is recognised by the element, whatever the status", arguments: [403, 409, 412])
    func invalidToken(status: Int) throws {
        let (client, _) = makeClient([.init(status: status, body: SabreDAVFixtures.invalidTokenConflict)])
        let error = try #require(throws: CardDAVError.self) {
            try client.syncCollection(bookURL: book, token: "stale") { _ in }
        }
        #expect(error.kind == .invalidSyncToken)
        #expect(!error.message.contains("Invalid or unknown"), "no body in messages")
    }

    @Test("A first sync passes Radicale's 404s for long-gone items through as removals")
    func radicaleFirstSync() throws {
        let (client, transport) = makeClient([.init(status: 207, body: RadicaleFixtures.syncInitial)])
        var changes: [SyncChange] = []
        let result = try client.syncCollection(bookURL: "http://h/alice/book/", token: nil) { changes.append($0) }
        #expect(
            changes == [
                .changed(href: "/alice/book/u1.vcf", etag: #""01a7a958""#), .removed(href: "/alice/book/gone.vcf"),
            ])
        #expect(result.token == "http://radicale.org/ns/sync/5aeafdb5")
        #expect(transport.bodies[0].contains("<D:sync-token/>"))
    }

    @Test("A 207 sync report without a token is malformed")
    func syncWithoutToken() throws {
        let body = RadicaleFixtures.syncInitial.replacing(
            "<sync-token>http://radicale.org/ns/sync/5aeafdb5</sync-token>", with: "")
        let (client, _) = makeClient([.init(status: 207, body: body)])
        #expect(throws: CardDAVError.self) { try client.syncCollection(bookURL: book, token: nil) { _ in } }
    }

    @Test("Listing skips the collection itself and sub-collections")
    func listing() throws {
        let body = """
            <d:multistatus xmlns:d="DAV:"><d:response><d:href>/remote.php/dav/addressbooks/users/alice/contacts</d:href>\
            <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop>\
            <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\
            <d:response><d:href>sub/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype>\
            </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\
            <d:response><d:href>/remote.php/dav/addressbooks/users/alice/contacts/a%20b.vcf</d:href><d:propstat>\
            <d:prop><d:getetag>"x"</d:getetag><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status>\
            </d:propstat></d:response></d:multistatus>
            """
        let (client, transport) = makeClient([.init(status: 207, body: body)])
        var items: [String] = []
        try client.list(bookURL: book) { href, etag, _ in items.append(href + " " + etag) }
        #expect(items == [#"/remote.php/dav/addressbooks/users/alice/contacts/a%20b.vcf "x""#])
        #expect(transport.header("Depth", of: 0) == "1")
    }

    @Test("Multiget reports cards, missing items and oversized ones, each on its own")
    func multiget() throws {
        let (client, transport) = makeClient([.init(status: 207, body: RadicaleFixtures.multigetWithMissing)])
        var items: [MultigetItem] = []
        try client.multiget(bookURL: book, hrefs: ["/alice/book/u1.vcf", "/alice/book/nope.vcf"]) { items.append($0) }
        #expect(items.count == 2)
        #expect(items[0].vcard?.hasPrefix("BEGIN:VCARD\r\n") == true)
        #expect(items[0].etag == #""01a7""#)
        #expect(items[1].isMissing && items[1].status == 404)
        #expect(transport.bodies[0].contains("<C:address-data/>"))
        #expect(transport.bodies[0].contains("<D:href>/alice/book/nope.vcf</D:href>"))
    }

    @Test("Multiget asks for a version when told, and sends at most 100 hrefs per request")
    func multigetBatches() throws {
        let empty = #"<multistatus xmlns="DAV:"/>"#
        let (client, transport) = makeClient(Array(repeating: .init(status: 207, body: empty), count: 3))
        let hrefs = (0..<250).map { "/b/\($0).vcf" }
        try client.multiget(bookURL: book, hrefs: hrefs, version: "4.0") { _ in }
        #expect(transport.requests.count == 3)
        #expect(transport.bodies.map { $0.components("<D:href>") } == [100, 100, 50])
        #expect(transport.bodies[0].contains(#"<C:address-data content-type="text/vcard" version="4.0"/>"#))
    }

    @Test("PUT sends the ETag exactly as received and returns the new one untouched")
    func putPreconditions() throws {
        let (client, transport) = makeClient([
            .init(status: 204, body: "", headers: [HTTPHeader("ETag", #"W/"abc"-gzip"#)]),
            .init(status: 201, body: ""),
        ])
        let updated = try client.put(
            url: book + "a.vcf", vcard: "BEGIN:VCARD", ifMatch: #"W/"old"-gzip"#, ifNoneMatchAny: false)
        #expect(updated == PutResult(status: 204, etag: #"W/"abc"-gzip"#))
        #expect(transport.header("If-Match", of: 0) == #"W/"old"-gzip"#)
        #expect(transport.header("Content-Type", of: 0) == "text/vcard; charset=utf-8")
        let created = try client.put(url: book + "b.vcf", vcard: "BEGIN:VCARD", ifMatch: nil, ifNoneMatchAny: true)
        #expect(created == PutResult(status: 201, etag: nil))
        #expect(transport.header("If-None-Match", of: 1) == "*")
        #expect(transport.header("If-Match", of: 1) == nil)
    }

    @Test("Network failures keep the HTTP error, with method and path")
    func networkError() throws {
        let failure = HTTPError(.timeout, "timed out", url: book)
        let (client, _) = makeClient([.init(status: 0, body: "", error: failure)])
        let error = try #require(throws: CardDAVError.self) { try client.delete(url: book + "a.vcf", ifMatch: #""e""#) }
        #expect(error.kind == .network(failure))
        #expect(error.message.hasPrefix("DELETE /remote.php/dav/addressbooks/users/alice/contacts/a.vcf"))
    }

    @Test("An error in the caller's handler aborts the transfer and comes out unchanged")
    func callerErrorPropagates() throws {
        struct Enough: Error {}
        let (client, _) = makeClient([.init(status: 207, body: SabreDAVFixtures.truncatedSync)])
        #expect(throws: Enough.self) {
            try client.syncCollection(bookURL: book, token: "t") { _ in throw Enough() }
        }
    }

    @Test("A 207 with an HTML body is malformed, naming the request")
    func htmlMultistatus() throws {
        let (client, _) = makeClient([.init(status: 207, body: "<html><body>oops</body></html>")])
        let error = try #require(throws: CardDAVError.self) { try client.list(bookURL: book) { _, _, _ in } }
        #expect(error.kind == .malformedResponse)
        #expect(error.message.hasPrefix("PROPFIND /remote.php/dav/addressbooks/users/alice/contacts/: 207"))
    }

    @Test("New item URLs are the book URL plus the encoded file name")
    func itemURL() {
        #expect(CardDAVClient.itemURL(bookURL: "http://h/b/", uid: "abc-1") == "http://h/b/abc-1.vcf")
        #expect(CardDAVClient.itemURL(bookURL: "http://h/b", uid: "a@b+c") == "http://h/b/a@b+c.vcf")
        #expect(CardDAVClient.itemURL(bookURL: "http://h/b/", uid: "a b/c").hasPrefix("http://h/b/a_b_c-"))
    }
}

extension String {
    /// How many times `separator` occurs.
    func components(_ separator: String) -> Int {
        split(separator: separator, omittingEmptySubsequences: false).count - 1
    }
}

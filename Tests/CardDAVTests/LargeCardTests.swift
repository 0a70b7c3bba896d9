import HTTP
import SystemSupport
import Testing
import VCard

@testable import CardDAV

/// Cards of megabytes (a photo) on the CardDAV path: spooled past `CardText.spoolThreshold` as they are read,
/// refused past `CardReader.Limits.maxCardBytes` without holding them, and sizes taken from listings.
@Suite("Large cards")
struct LargeCardTests {
    static let book = "https://dav.example.com/alice/book/"

    /// A card of about `size` bytes: a photo's worth of base64 in lines of 76, numbered so that a piece lost or
    /// repeated shows. LF only: XML turns CR LF into LF.
    static func card(uid: String, size: Int) -> String {
        var text = "BEGIN:VCARD\nVERSION:3.0\nUID:\(uid)\nFN:\(uid)\nPHOTO;ENCODING=b;TYPE=JPEG:"
        var line = 0
        while text.utf8.count < size {
            let number = String(line)
            text += "\n " + number + String(repeating: "A", count: 75 - number.count)
            line += 1
        }
        return text + "\nEND:VCARD\n"
    }

    static func multistatus(_ cards: [(href: String, card: String)]) -> String {
        var body = #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">"#
        for (href, card) in cards {
            body += "<D:response><D:href>\(href)</D:href><D:propstat><D:prop><D:getetag>\"\(href.count)\"</D:getetag>"
            body += "<C:address-data>\(card)</C:address-data></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
            body += "</D:propstat></D:response>"
        }
        return body + "</D:multistatus>"
    }

    /// A photo's worth: 3 MB, or just under the reader's limit while that is smaller (2 MiB before it was raised).
    static let largeSize = min(3_000_000, CardReader.Limits.maxCardBytes - 4096)

    func items(_ cards: [(href: String, card: String)]) throws -> [String: MultigetItem.Outcome] {
        let (client, _) = makeClient([.init(status: 207, body: Self.multistatus(cards))])
        var outcomes: [String: MultigetItem.Outcome] = [:]
        try client.multiget(bookURL: Self.book, hrefs: cards.map(\.href)) { outcomes[$0.href] = $0.outcome }
        return outcomes
    }

    @Test("A card of 3 MB in a multiget is spooled, byte for byte; a small one stays in memory")
    func spooledAddressData() throws {
        let big = Self.card(uid: "big", size: Self.largeSize)
        let small = Self.card(uid: "small", size: 400)
        let outcomes = try items([("/alice/book/small.vcf", small), ("/alice/book/big.vcf", big)])
        guard case .card(.spooled(let file))? = outcomes["/alice/book/big.vcf"] else {
            Issue.record("the big card is not spooled: \(String(describing: outcomes["/alice/book/big.vcf"]))")
            return
        }
        #expect(file.readAll().elementsEqual(big.utf8))
        guard case .card(.bytes(let bytes))? = outcomes["/alice/book/small.vcf"] else {
            Issue.record("the small card is not in memory")
            return
        }
        #expect(bytes == Array(small.utf8))
    }

    @Test("A card over the reader's limit is refused, naming it and its size; the other items come through")
    func oversizedAddressData() throws {
        let limit = CardReader.Limits.maxCardBytes
        let big = Self.card(uid: "huge", size: limit + (1 << 20))
        let outcomes = try items([
            ("/alice/book/a.vcf", Self.card(uid: "a", size: 300)), ("/alice/book/huge.vcf", big),
            ("/alice/book/z.vcf", Self.card(uid: "z", size: 100_000)),
        ])
        guard case .failed(let error)? = outcomes["/alice/book/huge.vcf"] else {
            Issue.record("the huge card is not refused")
            return
        }
        #expect(error.message.contains("/alice/book/huge.vcf"))
        #expect(error.message.contains("larger than \(limit >> 20) MiB (at least \(big.utf8.count) bytes); refused"))
        if case .card(.bytes)? = outcomes["/alice/book/a.vcf"] {} else { Issue.record("a.vcf did not come through") }
        if case .card(.spooled)? = outcomes["/alice/book/z.vcf"] {} else { Issue.record("z.vcf did not come through") }
    }

    @Test("A GET of a large card is spooled byte for byte; one over the limit is refused, naming it and its size")
    func getSpooled() throws {
        let big = Self.card(uid: "big", size: Self.largeSize)
        let huge = Self.card(uid: "huge", size: CardReader.Limits.maxCardBytes + 1)
        let (client, _) = makeClient([
            .init(status: 200, body: big, headers: [HTTPHeader("ETag", "\"1\"")]), .init(status: 200, body: huge),
        ])
        let (etag, text) = try client.getBytes(url: Self.book + "big.vcf")
        #expect(etag == "\"1\"")
        guard case .spooled(let file) = text else {
            Issue.record("the card is not spooled")
            return
        }
        #expect(file.readAll().elementsEqual(big.utf8))
        let error = try #require(throws: CardDAVError.self) { try client.getBytes(url: Self.book + "huge.vcf") }
        #expect(error.message.contains("/alice/book/huge.vcf"))
        #expect(error.message.contains("(at least \(huge.utf8.count) bytes); refused"))
    }

    @Test("A PUT of a spooled card sends it from its file, with its length")
    func putSpooled() throws {
        let card = Self.card(uid: "big", size: 200_000)
        let file = try SpoolFile()
        try file.append(Array(card.utf8))
        let (client, transport) = makeClient([.init(status: 201, body: "", headers: [HTTPHeader("ETag", "\"2\"")])])
        let result = try client.put(
            url: Self.book + "big.vcf", vcard: .spooled(file), ifMatch: nil, ifNoneMatchAny: true)
        #expect(result.etag == "\"2\"")
        guard case .spooled(let sent)? = transport.requests.first?.body else {
            Issue.record("the body was copied into memory")
            return
        }
        #expect(sent === file)
    }

    @Test("An upload of 1 MiB or more waits for its answer as long as a listing; a smaller one as any request")
    func largeUploadWaits() throws {
        let large = try SpoolFile()
        try large.append(Array(Self.card(uid: "large", size: CardDAVClient.largeUploadBytes).utf8))
        let small = CardText.bytes(Array(Self.card(uid: "small", size: 200_000).utf8))
        let created = FakeTransport.Reply(status: 201, body: "")
        let (client, transport) = makeClient([created, created, created, created])
        _ = try client.put(url: Self.book + "large.vcf", vcard: .spooled(large), ifMatch: nil, ifNoneMatchAny: true)
        _ = try client.put(url: Self.book + "small.vcf", vcard: small, ifMatch: nil, ifNoneMatchAny: true)
        _ = try client.perform([
            .put(url: Self.book + "large.vcf", vcard: .spooled(large), ifMatch: "\"1\"", ifNoneMatchAny: false),
            .put(url: Self.book + "small.vcf", vcard: small, ifMatch: "\"1\"", ifNoneMatchAny: false),
        ])
        let patient = CardDAVClient.listingLowSpeedTime
        #expect(transport.requests.map(\.lowSpeedTime) == [patient, nil, patient, nil])
    }

    @Test("The listing and sync-collection ask for each item's size and hand it on")
    func listedSizes() throws {
        let listing = """
            <?xml version="1.0"?><D:multistatus xmlns:D="DAV:">
            <D:response><D:href>/alice/book/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>
            </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
            <D:response><D:href>/alice/book/a.vcf</D:href><D:propstat><D:prop><D:getetag>"a"</D:getetag>
            <D:getcontentlength> 1993000 </D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            </D:response>
            <D:response><D:href>/alice/book/b.vcf</D:href><D:propstat><D:prop><D:getetag>"b"</D:getetag></D:prop>
            <D:status>HTTP/1.1 200 OK</D:status></D:propstat><D:propstat><D:prop><D:getcontentlength/></D:prop>
            <D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>
            </D:multistatus>
            """
        let report =
            String(listing.dropLast("</D:multistatus>".count)) + "<D:sync-token>t1</D:sync-token></D:multistatus>"
        let (client, transport) = makeClient([.init(status: 207, body: listing), .init(status: 207, body: report)])
        var listed: [String: Int?] = [:]
        try client.list(bookURL: Self.book) { href, _, size in listed[href] = size }
        #expect(listed == ["/alice/book/a.vcf": 1_993_000, "/alice/book/b.vcf": Int?.none])
        var changes: [SyncChange] = []
        _ = try client.syncCollection(bookURL: Self.book, token: nil) { changes.append($0) }
        #expect(
            changes == [
                .changed(href: "/alice/book/a.vcf", etag: "\"a\"", size: 1_993_000),
                .changed(href: "/alice/book/b.vcf", etag: "\"b\""),
            ])
        #expect(transport.bodies.allSatisfy { $0.contains("<D:getcontentlength/>") })
    }
}

import HTTP
import Logging
import Remotes
import Sync
import TestSupport
import Testing

@testable import CardDAV

/// A server with sync-collection that answers the four kinds of listing request, recording each as
/// "METHOD depth what"; `token` is its `DAV:sync-token` property (nil: it gives none), and a sync-collection
/// from any token but `token` is refused with `DAV:valid-sync-token`. Its query for every card answers as `query`
/// says: both cards, a sub-collection and an item without its card; a 507 after the first card; or a 500.
final class ListingServer: DAVTransport {
    enum Query { case whole, cutShort, fails }
    static let book = "/alice/book/"
    let token: String?
    let query: Query
    private(set) var requests: [String] = []

    init(token: String?, query: Query = .whole) {
        self.token = token
        self.query = query
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        let body = request.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
        let depth = request.headers.first { $0.name == "Depth" }?.value ?? "-"
        let what =
            body.contains("addressbook-query")
            ? "query"
            : body.contains("sync-collection") ? "sync-collection" : body.contains("sync-token") ? "token" : "etags"
        requests.append("\(request.method) \(depth) \(what)")
        let items = ["a", "b"].map { MultistatusText.response("\(Self.book)\($0).vcf", etag: "\"\($0)1\"") }
        let answer: String
        var status = 207
        switch what {
        case "token":
            let property = token.map { "<sync-token>\($0)</sync-token>" } ?? ""
            answer = MultistatusText.multistatus([
                "<response><href>\(Self.book)</href><propstat><prop>\(property)</prop>"
                    + "<status>HTTP/1.1 200 OK</status></propstat></response>"
            ])
        case "sync-collection" where body.contains("<D:sync-token/>") || body.contains("<D:sync-token>\(token ?? "")<"):
            answer = MultistatusText.multistatus(items, token: "from-report")
        case "query":
            let cards = ["a", "b"].map {
                MultistatusText.response(
                    "\(Self.book)\($0).vcf", etag: "\"\($0)1\"",
                    card: "BEGIN:VCARD\nVERSION:3.0\nUID:\($0)\nFN:\($0)\nEND:VCARD\n")
            }
            switch query {
            case .whole:
                let subCollection =
                    "<response><href>\(Self.book)sub/</href><propstat><prop><resourcetype><collection/></resourcetype>"
                    + "</prop><status>HTTP/1.1 200 OK</status></propstat></response>"
                answer = MultistatusText.multistatus(
                    cards + [subCollection, MultistatusText.response("\(Self.book)c.vcf", etag: "\"c1\"")])
            case .cutShort:
                let truncated =
                    "<response><href>\(Self.book)</href><status>HTTP/1.1 507 Insufficient Storage</status></response>"
                answer = MultistatusText.multistatus([cards[0], truncated])
            case .fails:
                status = 500
                answer = "down"
            }
        case "sync-collection":
            status = 403
            answer = "<?xml version='1.0'?><error xmlns=\"DAV:\"><valid-sync-token/></error>"
        default:
            answer = MultistatusText.multistatus(
                [
                    "<response><href>\(Self.book)</href><propstat><prop><resourcetype><collection/></resourcetype>"
                        + "</prop><status>HTTP/1.1 200 OK</status></propstat></response>"
                ] + items)
        }
        try Array(answer.utf8).withUnsafeBytes { try onBody($0) }
        return HTTPResponse(status: status, headers: [], url: request.url)
    }

    /// The book's changes since `since`, as the sync reads them, each as "HREF ETAG", with " +card" where the
    /// listing brought the card along (`withCards`: a first download).
    func changes(since: String?, withCards: Bool = false) throws -> (feed: ChangeFeed, listed: [String]) {
        let info = AddressBookInfo(url: "http://127.0.0.1:5232\(Self.book)", supportsSyncCollection: true)
        let book = CardDAVAddressBook(
            name: "book", book: info, client: CardDAVClient(transport: self, logger: Logger(label: "test")),
            retry: .immediate())
        var listed: [String] = []
        let feed = try book.changes(
            since: since, withCards: withCards,
            changed: { listed.append("\($0.href) \($0.etag)" + ($0.card.map { _ in " +card" } ?? "")) },
            removed: { _ in })
        return (feed, listed)
    }
}

@Suite("Listing a whole CardDAV book")
struct FullListingTests {
    static let everything = ["/alice/book/a.vcf \"a1\"", "/alice/book/b.vcf \"b1\""]

    @Test("a first sync reads the sync-token, then lists by PROPFIND, and goes on from that token")
    func tokenThenPropfind() throws {
        let server = ListingServer(token: "t1")
        let (feed, listed) = try server.changes(since: nil)
        #expect(server.requests == ["PROPFIND 0 token", "PROPFIND 1 etags"])
        #expect(listed == Self.everything)
        #expect(feed.isFullListing)
        #expect(feed.newToken == "t1")
    }

    @Test("a later sync asks for the changes since its token, and nothing else")
    func incremental() throws {
        let server = ListingServer(token: "t1")
        let (feed, listed) = try server.changes(since: "t1")
        #expect(server.requests == ["REPORT 0 sync-collection"])
        #expect(listed == Self.everything)
        #expect(!feed.isFullListing)
        #expect(feed.newToken == "from-report")
    }

    @Test("a token the server refuses leads to a whole listing, from a token read before it")
    func refusedToken() throws {
        let server = ListingServer(token: "t2")
        let (feed, listed) = try server.changes(since: "t1")
        #expect(server.requests == ["REPORT 0 sync-collection", "PROPFIND 0 token", "PROPFIND 1 etags"])
        #expect(listed == Self.everything)
        #expect(feed.isFullListing)
        #expect(feed.newToken == "t2")
    }

    @Test("a server with sync-collection but no sync-token property is listed by a token-less sync-collection")
    func noTokenProperty() throws {
        let server = ListingServer(token: nil)
        let (feed, listed) = try server.changes(since: nil)
        #expect(server.requests == ["PROPFIND 0 token", "REPORT 0 sync-collection"])
        #expect(listed == Self.everything)
        #expect(feed.isFullListing)
        #expect(feed.newToken == "from-report")
    }

    static let radicaleToken = "http://radicale.org/ns/sync/1"

    @Test("a first download from a server whose query pays (Radicale's tokens) takes every card in one query")
    func firstDownloadByQuery() throws {
        let server = ListingServer(token: Self.radicaleToken)
        let (feed, listed) = try server.changes(since: nil, withCards: true)
        #expect(server.requests == ["PROPFIND 0 token", "REPORT 1 query"])
        // The sub-collection left out; an item without its card listed with no ETag, so that it is fetched and
        // checked as usual.
        #expect(listed == ["/alice/book/a.vcf \"a1\" +card", "/alice/book/b.vcf \"b1\" +card", "/alice/book/c.vcf "])
        #expect(feed.isFullListing)
        #expect(feed.newToken == Self.radicaleToken)
    }

    @Test(
        "a query cut short, or refused, is followed by the usual listing",
        arguments: [ListingServer.Query.cutShort, .fails])
    func queryThenListing(query: ListingServer.Query) throws {
        let server = ListingServer(token: Self.radicaleToken, query: query)
        let (feed, listed) = try server.changes(since: nil, withCards: true)
        #expect(server.requests == ["PROPFIND 0 token", "REPORT 1 query", "PROPFIND 1 etags"])
        let fromQuery = query == .cutShort ? ["/alice/book/a.vcf \"a1\" +card"] : []
        #expect(listed == fromQuery + Self.everything)
        #expect(feed.isFullListing)
        #expect(feed.newToken == Self.radicaleToken)
    }

    @Test("only a first download from a server whose query pays is a query", arguments: [true, false])
    func noQuery(firstDownload: Bool) throws {
        // Radicale's token but not a first download; a first download from another server.
        let server = ListingServer(token: firstDownload ? "t1" : Self.radicaleToken)
        let (feed, listed) = try server.changes(since: nil, withCards: firstDownload)
        #expect(server.requests == ["PROPFIND 0 token", "PROPFIND 1 etags"])
        #expect(listed == Self.everything)
        #expect(feed.newToken == (firstDownload ? "t1" : Self.radicaleToken))
    }
}

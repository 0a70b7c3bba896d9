import HTTP
import Logging
import Sync
import Testing

@testable import CardDAV

/// A server with sync-collection that answers the three kinds of listing request, recording each as
/// "METHOD depth what"; `token` is its `DAV:sync-token` property (nil: it gives none), and a sync-collection
/// from any token but `token` is refused with `DAV:valid-sync-token`.
final class ListingServer: DAVTransport {
    static let book = "/alice/book/"
    let token: String?
    private(set) var requests: [String] = []

    init(token: String?) {
        self.token = token
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        let depth = request.headers.first { $0.name == "Depth" }?.value ?? "-"
        let what =
            body.contains("sync-collection") ? "sync-collection" : body.contains("sync-token") ? "token" : "etags"
        requests.append("\(request.method) \(depth) \(what)")
        let items = ["a", "b"].map { HostileServerTests.response("\(Self.book)\($0).vcf", etag: "\"\($0)1\"") }
        let answer: String
        var status = 207
        switch what {
        case "token":
            let property = token.map { "<sync-token>\($0)</sync-token>" } ?? ""
            answer = HostileServerTests.multistatus([
                "<response><href>\(Self.book)</href><propstat><prop>\(property)</prop>"
                    + "<status>HTTP/1.1 200 OK</status></propstat></response>"
            ])
        case "sync-collection" where body.contains("<D:sync-token/>") || body.contains("<D:sync-token>\(token ?? "")<"):
            answer = HostileServerTests.multistatus(items, token: "from-report")
        case "sync-collection":
            status = 403
            answer = "<?xml version='1.0'?><error xmlns=\"DAV:\"><valid-sync-token/></error>"
        default:
            answer = HostileServerTests.multistatus(
                [
                    "<response><href>\(Self.book)</href><propstat><prop><resourcetype><collection/></resourcetype>"
                        + "</prop><status>HTTP/1.1 200 OK</status></propstat></response>"
                ] + items)
        }
        try Array(answer.utf8).withUnsafeBytes { try onBody($0) }
        return HTTPResponse(status: status, headers: [], url: request.url)
    }

    /// The book's changes since `since`, as the sync reads them.
    func changes(since: String?) throws -> (feed: ChangeFeed, listed: [String]) {
        let info = AddressBookInfo(url: "http://127.0.0.1:5232\(Self.book)", supportsSyncCollection: true)
        let book = CardDAVAddressBook(
            name: "book", book: info, client: CardDAVClient(transport: self, logger: Logger(label: "test")),
            retry: .immediate())
        var listed: [String] = []
        let feed = try book.changes(
            since: since, changed: { listed.append("\($0.href) \($0.etag)") }, removed: { _ in })
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
}

import HTTP
import Logging
import Remotes
import Sync
import TestSupport
import Testing

@testable import CardDAV

/// A server that answers each multiget with a card for every href asked for, after dropping the first
/// `failures` of them on the way.
final class FlakyMultigetServer: DAVTransport {
    private var failuresLeft: Int
    private(set) var multigets = 0

    init(failures: Int) {
        failuresLeft = failures
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        multigets += 1
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw HTTPError(.other, "the connection was dropped")
        }
        let body = request.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
        let hrefs = body.matches(of: #/<D:href>([^<]*)</D:href>/#).map { String($0.output.1) }
        let answer = MultistatusText.multistatus(
            hrefs.map { href in
                MultistatusText.response(href, card: MultistatusText.card.replacing("u1", with: Self.uid(href)))
            })
        try Array(answer.utf8).withUnsafeBytes { try onBody($0) }
        return HTTPResponse(status: 207, headers: [], url: request.url)
    }

    static func uid(_ href: String) -> String {
        String(href.split(separator: "/").last ?? "").replacing(".vcf", with: "")
    }
}

@Suite("Fetching a CardDAV book page after page")
struct PipelinedFetchTests {
    @Test("every page comes back whole and in order, and a multiget that fails on the way is sent again")
    func pagesInOrder() throws {
        let server = FlakyMultigetServer(failures: 1)
        let info = AddressBookInfo(url: "http://127.0.0.1:5232/alice/book/")
        let book = CardDAVAddressBook(
            name: "flaky", book: info, client: CardDAVClient(transport: server, logger: Logger(label: "test")),
            retry: .immediate())
        let pages = [100, 100, 7].enumerated().map { page, count in
            (0..<count).map { "/alice/book/p\(page)-\($0).vcf" }
        }
        var given = pages.makeIterator()
        var seen: [[String]] = []
        func next() -> [String]? { given.next() }
        try book.fetchPages(next) { hrefs, results in
            #expect(hrefs.count == results.count)
            seen.append(try results.map { try $0.get().uid })
        }
        #expect(seen == pages.map { $0.map(FlakyMultigetServer.uid) })
        #expect(server.multigets == 4)  // three pages, the first sent twice
    }
}

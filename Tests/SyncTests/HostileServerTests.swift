import ContactStore
import HTTP
import Logging
import Remotes
import Sync
import TestSupport
import Testing
import VCard

@testable import CardDAV

/// A server that answers every REPORT with a script and takes every write, recording where each request went.
final class ScriptedServer: DAVTransport {
    var syncCollection: String
    var multiget: String
    private(set) var requests: [HTTPRequest] = []

    init(syncCollection: String, multiget: String) {
        self.syncCollection = syncCollection
        self.multiget = multiget
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        requests.append(request)
        let body = request.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
        let answer = body.contains("sync-collection") ? syncCollection : multiget
        try Array(answer.utf8).withUnsafeBytes { try onBody($0) }
        return HTTPResponse(status: 207, headers: [], url: request.url)
    }

    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        for (index, request) in requests.enumerated() {
            self.requests.append(request)
            let response = HTTPResponse(status: 201, headers: [HTTPHeader("ETag", "\"new\"")], url: request.url)
            try completion(index, .success((response, [])))
        }
    }
}

@Suite("A server that lists hrefs outside the book")
struct HostileServerTests {
    static let outside = [
        "/other/user/card.vcf", "../../etc/x.vcf", "%2e%2e/%2e%2e/enc.vcf", "http://127.0.0.1:9/alice/book/y.vcf",
    ]

    @Test("hrefs outside the book are ignored: nothing is fetched, stored, written or deleted there")
    func nothingLeavesTheBook() throws {
        let fixture = try SyncFixture()
        _ = try fixture.store.importChunk([try makeCard("mine", "Mine")])
        let server = ScriptedServer(
            syncCollection: MultistatusText.multistatus(
                [MultistatusText.response("/alice/book/u1.vcf")] + Self.outside.map { MultistatusText.response($0) },
                token: "t1"),
            multiget: MultistatusText.multistatus(
                [MultistatusText.response("/alice/book/u1.vcf", card: MultistatusText.card)]
                    + Self.outside.map {
                        MultistatusText.response($0, card: MultistatusText.card.replacing("u1", with: "sneaked"))
                    }))
        let info = AddressBookInfo(
            url: "http://127.0.0.1:5232/alice/book/", displayName: nil, supportsSyncCollection: true,
            supportedVersions: ["3.0"])
        let book = CardDAVAddressBook(
            name: "hostile", book: info, client: CardDAVClient(transport: server, logger: Logger(label: "test")),
            retry: .immediate())
        let report = try fixture.engine.sync(
            book, remote: fixture.store.row(for: book, url: info.url), options: SyncOptions())
        #expect(report.outcome == .ok)
        #expect(report.counts.downloaded == 1)
        #expect(report.counts.uploaded == 1)
        #expect(Set(try fixture.localContents().keys) == ["u1", "mine"])
        // the sync-token (none given), the listing, the multiget of u1, the upload of mine
        #expect(server.requests.count == 4)
        for request in server.requests {
            #expect(request.url.hasPrefix("http://127.0.0.1:5232/alice/book/"), "\(request.method) \(request.url)")
            #expect(!request.url.contains("..") && !request.url.lowercased().contains("%2e"))
        }
        let multiget = server.requests[2].body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(!multiget.contains("other") && !multiget.contains("etc") && !multiget.contains("enc.vcf"))
    }
}

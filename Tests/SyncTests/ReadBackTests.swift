import ContactStore
import HTTP
import Logging
import Remotes
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

@testable import CardDAV

/// A stand-in for a real server seen by a household (a bug in its line folding): it answers a PUT with 201 and no
/// ETag, and stores the text `(null)` for a card whose note splits an emoji where it folds. Everything else it
/// stores as sent. It serves sync-collection, multiget and GET from what it holds.
final class NullStoringServerStandIn: DAVTransport {
    static let book = "/alice/book/"
    private(set) var items: [String: (etag: String, text: String)] = [:]
    private var version = 0

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        let body = request.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
        var answer = ""
        var status = 207
        if request.method == "GET" {
            let href = DAVURL.path(of: request.url)
            answer = items[href]?.text ?? ""
            status = items[href] == nil ? 404 : 200
        } else if body.contains("sync-collection") {
            answer = MultistatusText.multistatus(
                items.map { MultistatusText.response($0.key, etag: $0.value.etag) }, token: "t\(version)")
        } else if body.contains("addressbook-multiget") {
            answer = MultistatusText.multistatus(
                items.map { MultistatusText.response($0.key, etag: $0.value.etag, card: Self.xml($0.value.text)) })
        } else {
            answer = MultistatusText.multistatus([])
        }
        try Array(answer.utf8).withUnsafeBytes { try onBody($0) }
        return HTTPResponse(status: status, headers: [], url: request.url)
    }

    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        for (index, request) in requests.enumerated() {
            let text = request.body?.withBytes { String(decoding: $0, as: UTF8.self) } ?? ""
            version += 1
            items[DAVURL.path(of: request.url)] = ("\"v\(version)\"", text.contains("🐶") ? "(null)" : text)
            try completion(index, .success((HTTPResponse(status: 201, headers: [], url: request.url), [])))
        }
    }

    private static func xml(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing("\r", with: "&#13;")
    }
}

@Suite("The read-back: what a server stored, compared with what it was sent")
struct ReadBackTests {
    @Test(
        "a server that stores something else than a card is noticed at once, reported once, and its copy never comes back"
    )
    func nullBodyNoticed() throws {
        let fixture = try SyncFixture()
        let dog = try makeCard("dog", "Dog Owner", note: String(repeating: "a", count: 69) + "🐶")
        _ = try fixture.store.importChunk([try makeCard("ok", "Fine"), dog])
        let before = try fixture.localContents()
        let server = NullStoringServerStandIn()
        let info = AddressBookInfo(
            url: "http://127.0.0.1:5232/alice/book/", displayName: nil, supportsSyncCollection: true,
            supportedVersions: ["3.0", "4.0"])
        let book = CardDAVAddressBook(
            name: "null", book: info, client: CardDAVClient(transport: server, logger: Logger(label: "test")),
            retry: .immediate())
        func sync() throws -> SyncReport {
            try fixture.engine.sync(book, remote: fixture.store.row(for: book, url: info.url), options: SyncOptions())
        }

        let first = try sync()
        #expect(first.counts.uploaded == 2)
        #expect(first.damaged.count == 1, "\(first.damaged)")
        #expect(
            first.damaged.first?.hasPrefix(
                #"null changed Dog Owner (UID dog) as it stored it: it stored something that is no vCard ("(null)")"#)
                == true, "\(first.damaged)")
        #expect(first.damaged.first?.contains("The box keeps its own version") == true)
        #expect(server.items["/alice/book/dog.vcf"]?.text == "(null)", "sent again with a REV, and lost again")
        #expect(try fixture.localContents() == before)

        // Listed with an ETag the box has not seen, the damaged copy is fetched, known, and left alone.
        let second = try sync()
        #expect(second.counts == SyncCounts())
        #expect(second.damaged.isEmpty && second.notes.isEmpty && second.errors.isEmpty, "\(second.notes)")
        #expect(try fixture.localContents() == before)

        // An edit on the box goes out again; a card the server keeps clears the damage.
        try fixture.store.upsert(try makeCard("dog", "Dog Owner", note: "no emoji now"), reason: "edited")
        let third = try sync()
        #expect(third.counts.updated == 1 && third.damaged.isEmpty, "\(third.damaged)")
        let remote = try #require(try fixture.store.remote(named: "null"))
        #expect(try fixture.store.damage(remoteID: remote.id, uid: "dog") == nil)
        #expect(server.items["/alice/book/dog.vcf"]?.text.contains("no emoji now") == true)
    }
}

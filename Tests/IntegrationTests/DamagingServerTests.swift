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

/// A stand-in for what a real server does that the suite cannot run (a SabreDAV-based one, seen by a household):
/// a card PUT without `REV` is stored re-rendered, and damaged by the re-render; the PUT is answered without an
/// ETag. It sits between the client and a real server, as the client's transport, and passes everything else on.
/// `always`: a card with a `REV` is damaged too (a server that damages whatever it is sent).
final class ReRenderingServerStandIn: DAVTransport {
    let server: HTTPClient
    let always: Bool
    private(set) var damagedPUTs = 0

    init(inFrontOf server: HTTPClient, always: Bool = false) {
        self.server = server
        self.always = always
    }

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        try server.perform(request, onBody: onBody)
    }

    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        var damaged: Set<Int> = []
        let sent = requests.enumerated().map { index, request in
            guard request.method == "PUT", let body = request.body else { return request }
            let text = body.withBytes { String(decoding: $0, as: UTF8.self) }
            guard always || !text.contains("\r\nREV:") else { return request }
            damaged.insert(index)
            var request = request
            request.body = .bytes(Array(Self.reRendered(text).utf8))
            return request
        }
        damagedPUTs += damaged.count
        try server.sendAll(sent, maxBody: maxBody, maxConcurrent: maxConcurrent) { index, result in
            guard damaged.contains(index), case .success(var (response, body)) = result else {
                return try completion(index, result)
            }
            response.headers.removeAll { $0.name.lowercased() == "etag" }
            body = []
            try completion(index, .success((response, body)))
        }
    }

    /// The re-render as seen: `,` inside N's components and `;` inside a `tel:` URI escaped, an escaped `;` inside
    /// ADR's components unescaped (every later component shifts by one), group names upper-cased.
    static func reRendered(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).map { line -> String in
            var line = String(line)
            if let dot = line.firstIndex(of: "."), let colon = line.firstIndex(of: ":"), dot < colon,
                !line[..<dot].contains(";")
            {
                line = line[..<dot].uppercased() + line[dot...]
            }
            if line.hasPrefix("N:") { return "N:" + line.dropFirst(2).replacing(",", with: "\\,") }
            if line.hasPrefix("ADR") { return line.replacing("\\;", with: ";") }
            if line.hasPrefix("TEL;VALUE=uri:"), let colon = line.firstIndex(of: ":") {
                return String(line[...colon]) + line[line.index(after: colon)...].replacing(";", with: "\\;")
            }
            return line
        }.joined(separator: "\r\n")
    }
}

@Suite("A server that damages what it is sent", .serialized, .timeLimit(.minutes(10)))
struct DamagingServerTests {
    /// Cards a re-render damages: additional names with a comma, a street with an escaped `;`. Sent without REV.
    static func corpus() throws -> [Card] {
        try (0..<6).map { index in
            try parsedCard(
                vcard4(
                    "dmg-\(index)", "John Doe \(index)", "N:Doe \(index);John;Richter,James;;",
                    "ADR;TYPE=home:;;Main St \(index)\\; Flat 2;Town;;12345;",
                    "TEL;VALUE=uri:tel:+1-418-656-92\(index)0;ext=102",
                    "item1.EMAIL:john\(index)@example.org", "item1.X-ABLabel:work"
                ).replacing("N:John Doe \(index);;;;\r\n", with: ""))
        }
    }

    /// The box whose writes go through `standIn`, syncing the fixture's book.
    static func damagedBox(_ fixture: ServerSyncFixture, _ standIn: ReRenderingServerStandIn) throws
        -> (book: CardDAVAddressBook, sync: () throws -> SyncReport)
    {
        var logger = Logger(label: "damage")
        logger.logLevel = .warning
        let book = CardDAVAddressBook(
            name: fixture.remoteName, book: fixture.info, client: CardDAVClient(transport: standIn, logger: logger),
            retry: .immediate(attempts: 2))
        let sync = {
            try fixture.engine.sync(
                book, remote: fixture.store.row(for: book, url: fixture.server.addressBookURL), options: SyncOptions())
        }
        return (book, sync)
    }

    @Test(
        "a card damaged as it is stored is sent again with a REV, arrives intact, is reported once, and the form is remembered",
        arguments: TestServerKind.available.filter { $0 != .cyrus })
    func damageMendedByREV(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        let cards = try Self.corpus()
        _ = try fixture.store.importChunk(cards)
        let before = try fixture.localContents()
        let standIn = ReRenderingServerStandIn(inFrontOf: fixture.http)
        let (_, sync) = try Self.damagedBox(fixture, standIn)

        let report = try sync()
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors)")
        #expect(report.counts.uploaded == cards.count)
        #expect(report.damaged.isEmpty, "\(report.damaged)")
        let notes = report.notes.filter { $0.contains("as it stored it") }
        #expect(notes.count == 1, "\(report.notes)")
        #expect(notes.first?.contains("Sent again with a REV, it kept the card intact") == true, "\(notes)")
        #expect(
            notes.first?.contains(
                #"as it stored it: "ADR;TYPE="home":;;Main St 0\; Flat 2;Town;;12345" became "ADR;TYPE="home":;;Main St 0; Flat 2;Town;;12345""#
            )
                == true, "the note says what the server changed: \(notes)")
        #expect(standIn.damagedPUTs == cards.count, "the first writes go out together, as they are")
        #expect(try fixture.store.remote(named: fixture.remoteName)?.writeForm == ["rev"])
        // Nothing in the store changed, and the server holds every card intact.
        #expect(try fixture.localContents() == before)
        #expect(try fixture.serverContents() == before)
        // A second box reads the same; a second sync does nothing and says nothing.
        let second = try fixture.secondBox()
        _ = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(try ServerSyncFixture.contents(of: second.store) == before)
        let again = try sync()
        #expect(again.counts == SyncCounts())
        #expect(again.notes.isEmpty && again.damaged.isEmpty)

        // The form is remembered: new cards go with a REV from the start, and arrive intact.
        _ = try fixture.store.importChunk([try parsedCard(vcard4("dmg-new", "Nina New", "ADR:;;A\\;B;C;;;"))])
        let later = try sync()
        #expect(later.counts.uploaded == 1 && later.notes.isEmpty && later.damaged.isEmpty, "\(later.notes)")
        #expect(standIn.damagedPUTs == cards.count)
        #expect(try fixture.serverContents() == fixture.localContents())
    }

    @Test(
        "a server that damages whatever it is sent: the box keeps its version, reports each card once, and never reads the damage back",
        arguments: TestServerKind.available.filter { $0 != .cyrus })
    func lastingDamageNeverComesBack(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        let cards = try Self.corpus()
        _ = try fixture.store.importChunk(cards)
        let before = try fixture.localContents()
        let (_, sync) = try Self.damagedBox(fixture, ReRenderingServerStandIn(inFrontOf: fixture.http, always: true))

        let report = try sync()
        #expect(report.outcome == .ok, "\(report.message ?? "") \(report.errors)")
        #expect(report.damaged.count == cards.count, "\(report.damaged)")
        #expect(
            report.damaged.first?.contains("The box keeps its own version") == true
                && report.damaged.first?.contains("ADR") == true, "\(report.damaged)")
        #expect(try fixture.localContents() == before)
        let server = try fixture.serverContents()
        #expect(Set(server.keys) == Set(before.keys))
        #expect(server.allSatisfy { before[$0.key] != $0.value }, "the stand-in damaged every card")

        // The next sync neither downloads the damaged copies nor reports them again.
        let again = try sync()
        #expect(again.counts == SyncCounts())
        #expect(again.damaged.isEmpty && again.notes.isEmpty)
        #expect(try fixture.localContents() == before)

        // An edit on the server is still an edit: it comes down.
        let edited = vcard4("dmg-2", "Johanna Doe")
        try fixture.putOnServer(edited, as: Card.fileName(forUID: "dmg-2"))
        let third = try sync()
        #expect(third.counts.updated == 1, "\(third.errors)")
        #expect(try fixture.store.contact(uid: "dmg-2")?.displayName == "Johanna Doe")
    }

    @Test(
        "the vCard corpus through a server that damages it: the first box keeps every card, each damaged one is reported once, a second box reads what the server holds",
        arguments: TestServerKind.available.filter { $0 != .cyrus })
    func corpusThroughDamage(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        // The cards without FN take another path (refused, sent again with an FN, which the store keeps too).
        let cards = try ServerCorpusTests.corpusCards().filter { $0.first("FN") != nil }
        _ = try fixture.store.importChunk(cards)
        let before = try fixture.localContents()
        let (_, sync) = try Self.damagedBox(fixture, ReRenderingServerStandIn(inFrontOf: fixture.http, always: true))

        let report = try sync()
        #expect(report.outcome == .ok && report.counts.errors == 0, "\(report.message ?? "") \(report.errors)")
        let changedHere = try fixture.localContents().filter { before[$0.key] != $0.value }.keys.sorted()
        #expect(changedHere.isEmpty, "no contact in the first store changes: \(changedHere) \(report.notes)")
        let server = try fixture.serverContents()
        let damaged = Set(server.filter { before[$0.key] != $0.value }.keys)
        #expect(!damaged.isEmpty)
        let reported = report.damaged.compactMap { line in damaged.first { line.contains("(UID \($0))") } }
        #expect(
            Set(reported) == damaged && reported.count == damaged.count,
            "each damaged card once: \(damaged.subtracting(reported)) \(report.damaged.count) \(damaged.count)")

        let second = try fixture.secondBox()
        _ = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(
            try ServerSyncFixture.contents(of: second.store) == server, "the second box reads what the server holds")
        let again = try sync()
        #expect(
            again.counts == SyncCounts() && again.damaged.isEmpty, "\(again.counts) \(again.damaged) \(again.errors)")
        #expect(try fixture.localContents() == before)
    }
}

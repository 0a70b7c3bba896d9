import Foundation
import Logging
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import StatusServer

/// A fake ``ContactsBackend`` for the server's own tests: contacts in memory, named `contact-00001`..., with the
/// writes it was asked for recorded. The real one, over the store, is `StoreContacts` (its tests are in
/// StoreContactsTests; the daemon's with a real store in ApplianceTests).
final class FakeContacts: ContactsBackend, @unchecked Sendable {
    private struct State {
        var contacts: [ContactSummary]
        var seq: Int64
        var writes: [ContactWrite] = []
    }

    private let state: Mutex<State>
    let hostile: Bool

    init(count: Int, hostile: Bool = false) {
        self.hostile = hostile
        var contacts: [ContactSummary] = []
        for index in 0..<count {
            let number = String(format: "%05d", index + 1)
            let name = hostile && index == 0 ? "<script>alert(1)</script> Eve" : "Person " + number
            contacts.append(
                ContactSummary(
                    uid: "contact-" + number, name: name, phone: "+49 30 \(index + 1)",
                    email: "p\(index + 1)@example.org", initials: "P", hasPhoto: index == 0, hash: "hash-\(index + 1)",
                    changeSeq: Int64(index + 1), changedAt: 1_700_000_000_000))
        }
        state = Mutex(State(contacts: contacts, seq: Int64(count)))
    }

    var writes: [ContactWrite] { state.withLock { $0.writes } }

    /// A change as a sync would make it: the first contact gets a new hash and sequence number.
    func change() {
        state.withLock { state in
            state.seq += 1
            state.contacts[0].hash = "hash-changed-\(state.seq)"
            state.contacts[0].changeSeq = state.seq
        }
    }

    func list(search: String?, after cursor: String?, limit: Int) throws(ContactsError) -> ContactsPage {
        let all = state.withLock { $0.contacts }.filter { search == nil || $0.name.contains(search ?? "") }
        let start = cursor.flatMap { after in all.firstIndex { $0.uid > after } } ?? (cursor == nil ? 0 : all.count)
        let page = Array(all[start..<min(start + limit, all.count)])
        return ContactsPage(contacts: page, next: page.count == limit ? page.last?.uid : nil)
    }

    func contact(uid: String) throws(ContactsError) -> ContactDetail? {
        guard let summary = state.withLock({ $0.contacts.first { $0.uid == uid } }) else { return nil }
        var fields = [
            ContactField(kind: .name, value: summary.name),
            ContactField(kind: .phone, label: "mobile", value: "+49 30 1"),
        ]
        if hostile {
            fields += [
                ContactField(kind: .url, value: "javascript:alert(2)"),
                ContactField(kind: .url, value: "https://example.org/a?b=1&c=2"),
                ContactField(kind: .email, value: "mallory@example.org?subject=x\"><b>"),
            ]
        }
        return ContactDetail(
            summary: summary, fields: fields,
            unknown: [
                ContactProperty(name: "X-CUSTOM", parameters: [.init(name: "TYPE", values: ["a"])], value: "<i>")
            ],
            properties: [ContactProperty(name: "FN", value: summary.name)], remotes: ["icloud"])
    }

    func versions(uid: String, before: Int64?, limit: Int) throws(ContactsError) -> VersionsPage {
        VersionsPage(
            versions: [
                ContactVersion(
                    id: 7, recordedAt: 1_700_000_000_000, kind: "updated", cause: "sync with icloud", runID: 3,
                    changes: [FieldChange(field: "Phone (mobile)", before: "+49 30 1", after: "+49 30 2")],
                    canRestore: true),
                ContactVersion(
                    id: 6, recordedAt: 1_600_000_000_000, kind: "created", cause: "import", runID: 2, changes: [],
                    canRestore: false, timeUnsure: true),
            ], next: nil)
    }

    func trash(after cursor: String?, limit: Int) throws(ContactsError) -> TrashPage {
        TrashPage(
            contacts: [
                TrashedContact(
                    uid: "gone", name: "Gone <b>Person</b>", deletedAt: 1_700_000_000_000, cause: "the command line",
                    historyID: 9)
            ], next: nil)
    }

    func changes(since seq: Int64, limit: Int) throws(ContactsError) -> ChangesPage {
        let rows = state.withLock { $0.contacts }.filter { $0.changeSeq > seq }.sorted { $0.changeSeq < $1.changeSeq }
            .prefix(limit)
        return ChangesPage(
            results: rows.map { ContactChange(seq: $0.changeSeq, uid: $0.uid, deleted: false, hash: $0.hash) },
            lastSeq: rows.last?.changeSeq ?? seq)
    }

    func lastChange() throws(ContactsError) -> Int64 { state.withLock { $0.seq } }

    func photo(uid: String) throws(ContactsError) -> ContactPhoto? {
        uid == "contact-00001" ? ContactPhoto(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47]) : nil
    }

    func export(uid: String?, asOf: Int64?) throws(ContactsError) -> any VCardExport {
        FakeExport(state.withLock { $0.contacts }.filter { uid == nil || $0.uid == uid })
    }

    func previewRestore(uid: String, historyID: Int64) throws(ContactsError) -> [FieldChange] {
        [FieldChange(field: "Phone (mobile)", before: "+49 30 2", after: "+49 30 1")]
    }

    func write(_ write: ContactWrite) throws(ContactsError) -> WriteOutcome {
        try state.withLock { state throws(ContactsError) in
            state.writes.append(write)
            switch write {
            case .put(let uid, _, let ifMatch, _):
                guard let index = state.contacts.firstIndex(where: { $0.uid == uid }) else {
                    state.seq += 1
                    let new = ContactSummary(
                        uid: uid, name: "New", initials: "N", hash: "hash-new", changeSeq: state.seq, changedAt: 0)
                    state.contacts.append(new)
                    return WriteOutcome(runID: 40, contact: new, created: true)
                }
                guard let ifMatch else { throw ContactsError(status: 428, "If-Match, please") }
                guard ifMatch == state.contacts[index].hash else { throw ContactsError(status: 412, "stale") }
                state.seq += 1
                state.contacts[index].hash = "hash-put-\(state.seq)"
                state.contacts[index].changeSeq = state.seq
                return WriteOutcome(runID: 41, contact: state.contacts[index], created: false)
            case .delete:
                return WriteOutcome(runID: 42, contact: nil, created: false)
            case .restore:
                return WriteOutcome(runID: 43, contact: state.contacts.first, created: false)
            }
        }
    }
}

/// Gives its cards 100 at a time, as the real export does.
final class FakeExport: VCardExport {
    private var rest: ArraySlice<ContactSummary>

    init(_ contacts: [ContactSummary]) {
        rest = contacts[...]
    }

    func next() throws(ContactsError) -> [UInt8]? {
        guard !rest.isEmpty else { return nil }
        let chunk = rest.prefix(100)
        rest = rest.dropFirst(100)
        return Array(
            chunk.map { "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\($0.uid)\r\nFN:\($0.name)\r\nEND:VCARD\r\n" }.joined().utf8)
    }
}

/// The API tokens of a server under test: `read` reads, `write` writes, in a folder of their own.
struct TestTokens {
    let folder: TemporaryDirectory
    let tokens: APITokens
    let read: String
    let write: String

    init() throws {
        folder = try TemporaryDirectory()
        tokens = APITokens(folder: folder.path)
        read = try tokens.create(name: "scripts", write: false)
        write = try tokens.create(name: "phonebook", write: true)
    }
}

func makeContactsServer(
    _ contacts: FakeContacts, tokens: TestTokens? = nil, password: String? = nil,
    pairings: PairedBrowsers = PairedBrowsers(folder: nil),
    records: LogRecords = LogRecords(), armRestore: (@Sendable (PageRestore) -> Bool)? = nil
) throws -> StatusServer {
    var logger = Logger(label: "ContactsAPITests") { _ in RecordingLogHandler(records: records) }
    logger.logLevel = .debug
    return try StatusServer(
        settings: StatusServer.Settings(host: "127.0.0.1", port: 0, password: password),
        clock: monotonicMillis, systemHosts: { ["127.0.0.1"] }, snapshot: { makeSnapshot() }, syncNow: {},
        pairings: pairings, contacts: contacts, tokens: tokens?.tokens, armRestore: armRestore, logger: logger)
}

@Suite("The contacts' JSON API: tokens, paging, ETags, writes, the changes feed, downloads")
struct ContactsAPITests {
    let tokens: TestTokens
    var read: [(String, String)] { [("Authorization", "Bearer " + tokens.read)] }
    var write: [(String, String)] { [("Authorization", "Bearer " + tokens.write)] }

    init() throws {
        tokens = try TestTokens()
    }

    @Test("without a token, a pairing or the page's password: 401 with a Bearer challenge, and the page asks to pair")
    func refusedWithoutCredentials() throws {
        let records = LogRecords()
        let server = try makeContactsServer(FakeContacts(count: 3), tokens: tokens, records: records)
        let api = try get(server, "/api/contacts")
        #expect(api.status == 401)
        #expect(api.header("WWW-Authenticate") == "Bearer realm=\"ContactBox\"")
        #expect(!api.body.contains("Person"))
        let page = try get(server, "/contacts")
        #expect(page.status == 403)
        #expect(page.body.contains("Pair this browser") && !page.body.contains("Person"))
        let wrong = try get(server, "/api/contacts", headers: [("Authorization", "Bearer guessed-secret")])
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.contains("invalid_token") == true)
        #expect(records.lines.contains { $0.contains("Unknown or revoked API token") })
        #expect(!records.lines.contains { $0.contains("guessed-secret") })
    }

    @Test("a token revoked from another process (the command line) gets 401 once the file says so")
    func revoked() throws {
        let server = try makeContactsServer(FakeContacts(count: 1), tokens: tokens)
        #expect(try get(server, "/api/contacts", headers: read).status == 200)
        #expect(try APITokens(folder: tokens.folder.path).revoke(name: "scripts"))
        let deadline = monotonicMillis() + 5_000
        var status = 200
        while status == 200, monotonicMillis() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            status = try get(server, "/api/contacts", headers: read).status
        }
        #expect(status == 401)
        #expect(try get(server, "/api/contacts", headers: write).status == 200)
    }

    @Test("a token reads the list in pages of its limit, each page's next cursor giving the following one")
    func paging() throws {
        let server = try makeContactsServer(FakeContacts(count: 250), tokens: tokens)
        var uids: [String] = []
        var after: String?
        repeat {
            let path = "/api/contacts?limit=100" + (after.map { "&after=" + FormEncoding.escape($0) } ?? "")
            let response = try get(server, path, headers: read)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
            let contacts = try #require(json["contacts"] as? [[String: Any]])
            uids += contacts.compactMap { $0["uid"] as? String }
            after = json["next"] as? String
        } while after != nil
        #expect(uids.count == 250 && Set(uids).count == 250)
        #expect(try get(server, "/api/contacts?limit=101", headers: read).status == 400)
        #expect(try get(server, "/api/contacts?limit=0", headers: read).status == 400)
    }

    @Test("a version dated by a clock not set says so in the history's JSON")
    func unsureTimeInHistory() throws {
        let server = try makeContactsServer(FakeContacts(count: 2), tokens: tokens)
        let response = try get(server, "/api/contacts/contact-00002/history", headers: read)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        let versions = try #require(json["versions"] as? [[String: Any]])
        #expect(versions.map { $0["time_unsure"] as? Bool } == [nil, true])
    }

    @Test("every JSON resource has an ETag; If-None-Match with it gets 304; a contact's ETag is its hash")
    func entityTags() throws {
        let contacts = FakeContacts(count: 5)
        let server = try makeContactsServer(contacts, tokens: tokens)
        for path in [
            "/api/contacts", "/api/contacts/contact-00002", "/api/contacts/contact-00002/history", "/api/trash",
        ] {
            let first = try get(server, path, headers: read)
            let tag = try #require(first.header("ETag"), "\(path)")
            let again = try get(server, path, headers: read + [("If-None-Match", tag)])
            #expect(again.status == 304, "\(path)")
            #expect(again.body.isEmpty)
        }
        let one = try get(server, "/api/contacts/contact-00002", headers: read)
        #expect(one.header("ETag") == "\"hash-2\"")
        #expect(
            try get(server, "/api/contacts/contact-00002", headers: read + [("If-None-Match", "\"hash-1\"")]).status
                == 200)
        contacts.change()
        #expect(
            try get(server, "/api/contacts", headers: read + [("If-None-Match", try #require(one.header("ETag")))])
                .status == 200)
        let vcard = try get(server, "/api/contacts/contact-00002", headers: read + [("Accept", "text/vcard")])
        #expect(vcard.header("Content-Type") == "text/vcard; charset=utf-8")
        #expect(vcard.body.contains("UID:contact-00002") && vcard.header("ETag") == "\"hash-2\"")
        #expect(try get(server, "/api/contacts/nobody", headers: read).status == 404)
    }

    @Test("PUT and DELETE: a read-only token gets 403; a write token's If-Match reaches the backend without quotes")
    func writes() throws {
        let contacts = FakeContacts(count: 3)
        let server = try makeContactsServer(contacts, tokens: tokens)
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:contact-00002\r\nFN:Changed\r\nEND:VCARD\r\n"
        let refused = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/contact-00002",
            headers: read + [("Content-Type", "text/vcard"), ("If-Match", "\"hash-2\"")], body: card)
        #expect(refused.status == 403, "\(refused.body)")
        let unknown = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/contact-00002",
            headers: [("Authorization", "Bearer guessed-secret"), ("Content-Type", "text/vcard")], body: card)
        #expect(unknown.status == 401, "\(unknown.body)")
        #expect(unknown.header("WWW-Authenticate")?.contains("invalid_token") == true)
        #expect(contacts.writes.isEmpty)
        let stale = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/contact-00002",
            headers: write + [("Content-Type", "text/vcard"), ("If-Match", "\"hash-1\"")], body: card)
        #expect(stale.status == 412)
        let written = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/contact-00002",
            headers: write + [("Content-Type", "text/vcard"), ("If-Match", "\"hash-2\"")], body: card)
        #expect(written.status == 200, "\(written.body)")
        #expect(written.header("ETag")?.hasPrefix("\"hash-put-") == true)
        #expect(
            contacts.writes.last
                == .put(uid: "contact-00002", vcard: Array(card.utf8), ifMatch: "hash-2", by: "API token phonebook"))
        let created = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/brand-new",
            headers: write + [("Content-Type", "text/vcard")],
            body: card.replacingOccurrences(of: "contact-00002", with: "brand-new"))
        #expect(created.status == 201)
        #expect(created.header("Location") == "/api/contacts/brand-new")
        let deleted = try HTTPTestClient.request(
            port: server.port, method: "DELETE", path: "/api/contacts/contact-00003",
            headers: write + [("If-Match", "hash-3")])
        #expect(deleted.status == 200)
        #expect(contacts.writes.last == .delete(uid: "contact-00003", ifMatch: "hash-3", by: "API token phonebook"))
        let tooLarge = try HTTPTestClient.request(
            port: server.port, method: "PUT", path: "/api/contacts/big",
            headers: write + [("Content-Type", "text/vcard")],
            body: String(repeating: "x", count: RequestHandler.maxCardBytes + 1))
        #expect(tooLarge.status == 413)
    }

    @Test("a long poll waits for a change and answers with it; with none it answers at its timeout with last_seq")
    func longPoll() throws {
        let contacts = FakeContacts(count: 3)
        let server = try makeContactsServer(contacts, tokens: tokens)
        let quiet = try get(server, "/api/changes?since=3&feed=longpoll&timeout=300", headers: read)
        #expect(quiet.status == 200)
        #expect(quiet.body == "{\"results\":[],\"last_seq\":3}\n")
        let answer = Mutex<String?>(nil)
        let started = monotonicMillis()
        let read = self.read
        let thread = Thread {
            let body = (try? get(server, "/api/changes?since=3&feed=longpoll&timeout=30000", headers: read))?.body
            answer.withLock { $0 = body ?? "failed" }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(answer.withLock { $0 } == nil, "it waits while nothing changed")
        contacts.change()
        while answer.withLock({ $0 }) == nil, monotonicMillis() - started < 40_000 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let body = try #require(answer.withLock { $0 })
        #expect(body.contains("\"uid\":\"contact-00001\"") && body.contains("\"last_seq\":4"), "\(body)")
        // Woken by the change, not by its 30 s timeout.
        #expect(monotonicMillis() - started < 15_000)
    }

    @Test("a long poll outlives both the idle timeout and the request deadline (10 s): it answers at its own timeout")
    func longPollOutlivesDeadlines() throws {
        var logger = Logger(label: "ContactsAPITests") { _ in RecordingLogHandler(records: LogRecords()) }
        logger.logLevel = .debug
        let server = try StatusServer(
            settings: StatusServer.Settings(host: "127.0.0.1", port: 0, connectionTimeout: .seconds(1)),
            clock: monotonicMillis, systemHosts: { ["127.0.0.1"] }, snapshot: { makeSnapshot() }, syncNow: {},
            pairings: PairedBrowsers(folder: nil), contacts: FakeContacts(count: 1), tokens: tokens.tokens,
            logger: logger)
        let started = monotonicMillis()
        // curl: the test client gives up after 10 s.
        let quiet = try curlRequest(
            "GET", "http://127.0.0.1:\(server.port)/api/changes?since=1&feed=longpoll&timeout=11500",
            headers: ["Authorization: Bearer " + tokens.read], user: nil)
        #expect(quiet.status == 200)
        #expect(quiet.body == "{\"results\":[],\"last_seq\":1}\n")
        #expect(monotonicMillis() - started >= 11_500)
    }

    @Test("at most four long polls wait at once, two per client; one more gets 503 with Retry-After; stopping answers")
    func longPollLimit() throws {
        let server = try makeContactsServer(FakeContacts(count: 1), tokens: tokens)
        let answers = Mutex<[Int]>([])
        let read = self.read
        for source in ["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.2"] {
            Thread {
                let response = try? HTTPTestClient.request(
                    port: server.port, path: "/api/changes?since=1&feed=longpoll&timeout=60000", headers: read,
                    from: source)
                answers.withLock { $0.append(response?.status ?? -1) }
            }.start()
        }
        let deadline = monotonicMillis() + 10_000
        while server.waitingLongPolls < LongPolls.limit, monotonicMillis() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(server.waitingLongPolls == LongPolls.limit)
        for source in ["127.0.0.1", "127.0.0.3"] {
            let refused = try HTTPTestClient.request(
                port: server.port, path: "/api/changes?since=1&feed=longpoll&timeout=60000", headers: read,
                from: source)
            #expect(refused.status == 503, "\(source)")
            #expect(refused.header("Retry-After") == "5")
        }
        #expect(try get(server, "/api/changes?since=0", headers: read).status == 200, "no wait: answered at once")
        server.stop()
        while answers.withLock({ $0.count }) < LongPolls.limit, monotonicMillis() < deadline + 10_000 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(answers.withLock { $0 } == Array(repeating: 200, count: LongPolls.limit))
    }

    @Test("the download of every contact streams in chunks to the end, as an attachment")
    func download() throws {
        let server = try makeContactsServer(FakeContacts(count: 5_000), tokens: tokens)
        let response = try curlRequest(
            "GET", "http://127.0.0.1:\(server.port)/api/export", headers: ["Authorization: Bearer " + tokens.read],
            user: nil, includeHeaders: true)
        #expect(response.status == 200)
        #expect(response.headers["content-disposition"]?.hasPrefix("attachment; filename=\"contacts-") == true)
        #expect(response.headers["transfer-encoding"] == "chunked")
        #expect(response.body.components(separatedBy: "BEGIN:VCARD").count - 1 == 5_000)
        #expect(response.body.contains("UID:contact-05000\r\n"))
        let one = try curlRequest(
            "GET", "http://127.0.0.1:\(server.port)/api/export?uid=contact-00042",
            headers: ["Authorization: Bearer " + tokens.read], user: nil)
        #expect(one.body == "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:contact-00042\r\nFN:Person 00042\r\nEND:VCARD\r\n")
        let badTime = try get(server, "/api/export?as_of=yesterday-ish", headers: read)
        #expect(badTime.status == 400)
    }

    @Test("a photo goes out with the backend's image type, nosniff and a policy that runs nothing")
    func photo() throws {
        let server = try makeContactsServer(FakeContacts(count: 2), tokens: tokens)
        let photo = try get(server, "/api/contacts/contact-00001/photo", headers: read)
        #expect(photo.status == 200)
        #expect(photo.header("Content-Type") == "image/png")
        #expect(photo.header("X-Content-Type-Options") == "nosniff")
        #expect(photo.header("Content-Security-Policy")?.contains("sandbox") == true)
        #expect(try get(server, "/api/contacts/contact-00002/photo", headers: read).status == 404)
    }

    @Test("the page's password reads the contacts; a token needs no password; the token reads the status too")
    func password() throws {
        let server = try makeContactsServer(FakeContacts(count: 2), tokens: tokens, password: "secret words")
        #expect(try get(server, "/api/contacts").status == 401)
        let basic = "Basic " + Data("any:secret words".utf8).base64EncodedString()
        #expect(try get(server, "/api/contacts", headers: [("Authorization", basic)]).status == 200)
        #expect(try get(server, "/contacts", headers: [("Authorization", basic)]).body.contains("Person 00002"))
        #expect(try get(server, "/api/contacts", headers: read).status == 200)
        #expect(try get(server, "/api/status", headers: read).status == 200)
    }
}

@Suite("The contacts' pages: hostile cards shown inert, links only where safe, restore confirmed")
struct ContactsPageTests {
    @Test("names are escaped, javascript: is no link, mailto and tel are made safe; the page allows no script")
    func hostileCards() throws {
        let pairings = PairedBrowsers(folder: nil)
        let server = try makeContactsServer(FakeContacts(count: 2, hostile: true), pairings: pairings)
        let headers = pairedHeaders(pairings, port: server.port)
        let list = try get(server, "/contacts", headers: headers)
        #expect(list.status == 200)
        #expect(!list.body.contains("<script>alert(1)"))
        #expect(list.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; Eve"))
        #expect(list.body.contains("href=\"tel:+49301\""))
        #expect(
            list.body.contains(
                "<img class=\"photo\" alt=\"\" loading=\"lazy\" src=\"/api/contacts/contact-00001/photo\">"))
        let policy = try #require(list.header("Content-Security-Policy"))
        #expect(!policy.contains("script-src") && policy.contains("default-src 'none'"))
        let detail = try get(server, "/contacts/contact-00001", headers: headers)
        #expect(detail.status == 200)
        #expect(!detail.body.contains("href=\"javascript:"))
        #expect(detail.body.contains("javascript:alert(2)"))
        #expect(detail.body.contains("href=\"https://example.org/a?b=1&amp;c=2\""))
        #expect(!detail.body.contains("mailto:mallory"))
        #expect(detail.body.contains("&lt;i&gt;"))
        #expect(detail.body.contains("class=\"restore inline\""))
    }

    @Test("the status page's policy names its own script by hash; nothing inline runs besides")
    func statusPolicy() throws {
        #expect(Response.scriptHash("abc") == "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        let server = try makeContactsServer(FakeContacts(count: 1))
        let page = try get(server, "/")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src '\(Response.scriptHash(StatusPage.script))'"))
        #expect(!policy.contains("'unsafe-inline'; connect") && !policy.contains("script-src 'unsafe-inline'"))
        #expect(page.body.contains("<script>" + StatusPage.script + "</script>"))
    }

    @Test("a restore shows what changes; a browser paired just now confirms on the page, the button otherwise")
    func restore() throws {
        let pairings = PairedBrowsers(folder: nil)
        let contacts = FakeContacts(count: 2)
        let armed = Recorder<PageRestore>()
        let server = try makeContactsServer(contacts, pairings: pairings) {
            armed.record($0)
            return true
        }
        let headers =
            pairedHeaders(pairings, port: server.port) + [("Content-Type", "application/x-www-form-urlencoded")]
        let token = try #require(headers.first { $0.0 == "X-ContactBox-Token" }?.1)
        func post(_ step: String, headers: [(String, String)]) throws -> HTTPTestResponse {
            try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/restore", headers: headers,
                body: "uid=contact-00001&version=7&step=\(step)&token=\(token)")
        }
        let preview = try post("preview", headers: headers)
        #expect(preview.status == 200)
        #expect(preview.body.contains("Phone (mobile)") && preview.body.contains("id=\"restore-confirm\""))
        #expect(contacts.writes.isEmpty)
        let done = try post("confirm", headers: headers)
        #expect(done.body.contains("Restored (run 43)"))
        #expect(
            contacts.writes == [
                .restore(
                    uid: "contact-00001", historyID: 7,
                    by: "the page (browser \(try #require(pairings.list().first?.id)))")
            ])
        let arm = try post("arm", headers: headers)
        #expect(arm.body.contains("press and hold"))
        #expect(armed.requests == [PageRestore(uid: "contact-00001", historyID: 7, name: "Person 00001")])
        let unpaired = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/restore",
            headers: [
                ("Origin", "http://127.0.0.1:\(server.port)"), ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body: "uid=contact-00001&version=7&step=confirm")
        #expect(unpaired.status == 403)
        let elsewhere = try post(
            "confirm", headers: headers.filter { $0.0 != "Origin" } + [("Origin", "http://evil.example")])
        #expect(elsewhere.status == 403)
        #expect(elsewhere.body.contains("another web site"), "\(elsewhere.body)")
        #expect(contacts.writes.count == 1)
    }

    @Test("a restore waiting for the button: named behind the page's password, \"a contact\" without it")
    func restoreOnStatusPage() throws {
        var snapshot = makeSnapshot()
        snapshot.undo = StatusSnapshot.Undo(run: 12, phase: .armed, deadline: 1_700_000_120, restore: "Ada <b>")
        let open = try makeServer(snapshot: snapshot)
        let page = try get(open, "/")
        #expect(page.body.contains("To restore a contact, hold the button"))
        #expect(!page.body.contains("Ada"))
        #expect(try get(open, "/api/status").body.contains("\"restore\":\"a contact\""))
        let closed = try makeServer(snapshot: snapshot, password: "secret words")
        let basic = [("Authorization", "Basic " + Data("any:secret words".utf8).base64EncodedString())]
        #expect(try get(closed, "/", headers: basic).body.contains("To restore Ada &lt;b&gt;, hold the button"))
    }

    @Test("a paired browser makes a token on the page, sees it once, and revokes it; an unpaired one only reads")
    func tokensPage() throws {
        let pairings = PairedBrowsers(folder: nil)
        let tokens = try TestTokens()
        let server = try makeContactsServer(FakeContacts(count: 1), tokens: tokens, pairings: pairings)
        let headers =
            pairedHeaders(pairings, port: server.port) + [("Content-Type", "application/x-www-form-urlencoded")]
        let token = try #require(headers.first { $0.0 == "X-ContactBox-Token" }?.1)
        let made = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/tokens", headers: headers,
            body: "action=create&name=desk-phone&write=on&token=\(token)")
        #expect(made.status == 200)
        let secret = try #require(
            made.body.firstRange(of: "cbx_").map { String(made.body[$0.lowerBound...].prefix(36)) })
        #expect(tokens.tokens.check(bearer: secret) == APITokens.Access(name: "desk-phone", canWrite: true))
        let again = try get(server, "/tokens", headers: headers)
        #expect(again.body.contains("desk-phone") && !again.body.contains(secret))
        let revoked = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/tokens", headers: headers,
            body: "action=revoke&name=desk-phone&token=\(token)")
        #expect(revoked.status == 200 && !revoked.body.contains("desk-phone"))
        #expect(tokens.tokens.check(bearer: secret) == nil)
        let forged = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/tokens",
            headers: [
                ("Origin", "http://127.0.0.1:\(server.port)"), ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body: "action=create&name=evil")
        #expect(forged.status == 403)
        #expect(!tokens.tokens.list().contains { $0.name == "evil" })
    }
}

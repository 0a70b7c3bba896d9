import Foundation
import TestSupport
import Testing

/// The contacts' JSON API as a program uses it: curl against the running daemon (`contactbox run`) on a real store
/// that syncs a real Radicale, with tokens from `contactbox token create`. Radicale is read with curl too, never
/// through the box's code.
@Suite(
    "The contacts' JSON API with curl against a running daemon", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"),
    .timeLimit(.minutes(5)))
struct ContactsAPICommandTests {
    static func person(_ number: Int, _ name: String? = nil) -> (fileName: String, vcard: String) {
        let uid = "p" + String(format: "%03d", number)
        return (uid + ".vcf", card(uid, name ?? "Person " + String(format: "%03d", number), "TEL:+49 30 555 \(number)"))
    }

    /// A token made on the command line while the daemon runs, once the daemon takes it (it reads the file again
    /// within a second or two).
    func token(_ box: ContactsBox, _ name: String, write: Bool = false) throws -> String {
        let made = try contactbox(["token", "create", name, "--db", box.work.db] + (write ? ["--write"] : []))
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .newlines)
        _ = try waitUntil("the daemon to take the token \(name)") {
            try box.curl("/api/contacts?limit=1", "Authorization: Bearer " + token).status == 200 ? true : nil
        }
        return "Authorization: Bearer " + token
    }

    /// Every page of `/api/contacts` from `first` (nil: the start), `limit` a page and `pause` microseconds between
    /// pages, after `collected`: (uid, name) in the order given.
    func allPages(
        _ box: ContactsBox, _ credential: String, limit: Int, pause: UInt32 = 0, first: String? = nil,
        collected: [(uid: String, name: String)] = [], afterEachPage: () throws -> Void = {}
    ) throws -> [(uid: String, name: String)] {
        var seen = collected
        var cursor = first
        repeat {
            let path = "/api/contacts?limit=\(limit)" + (cursor.map { "&after=" + $0 } ?? "")
            let answer = try box.curl(path, credential)
            try #require(answer.status == 200, "\(path): \(answer.status) \(answer.body)")
            let page = try jsonObject(answer.body)
            for contact in page["contacts"] as? [[String: Any]] ?? [] {
                seen.append((contact["uid"] as? String ?? "", contact["name"] as? String ?? ""))
            }
            cursor = page["next"] as? String
            try afterEachPage()
            usleep(pause)
        } while cursor != nil
        return seen
    }

    @Test("paging by cursor stays in name order while a sync renames, adds and deletes; ETag and 304")
    func pagingWhileSyncing() throws {
        let box = try ContactsBox(cards: (0..<200).map { Self.person($0) })
        let reader = try token(box, "reader")

        // Unchanged, the same page answers 304 to its ETag.
        let first = try box.curl("/api/contacts?limit=5", reader)
        let etag = try #require(first.headers["etag"], "\(first.headers)")
        let again = try box.curl("/api/contacts?limit=5", reader, headers: ["If-None-Match: " + etag])
        #expect(again.status == 304 && again.body.isEmpty, "\(again.status) \(again.body)")

        // The first 80 (Person 000 to 079) in four pages, then the cursor where they stopped.
        var seen: [(uid: String, name: String)] = []
        var cursor: String?
        for _ in 0..<4 {
            let answer = try box.curl("/api/contacts?limit=20" + (cursor.map { "&after=" + $0 } ?? ""), reader)
            let page = try jsonObject(answer.body)
            for contact in page["contacts"] as? [[String: Any]] ?? [] {
                seen.append((contact["uid"] as? String ?? "", contact["name"] as? String ?? ""))
            }
            cursor = page["next"] as? String
        }
        #expect(seen.map(\.name).last == "Person 079")

        // On Radicale: five read already get a name further on, five not read yet get one before the cursor, five
        // not read yet are deleted, five new ones come after the cursor.
        let movedOn = (10..<15).map { Self.person($0, "Zoe " + String(format: "%03d", $0)) }
        let movedBack = (150..<155).map { Self.person($0, "Adam " + String(format: "%03d", $0)) }
        let added = (0..<5).map { Self.person(200 + $0, "Person 120 new \($0)") }
        try box.radicale.seedCards(movedOn + movedBack + added)
        for number in 180..<185 {
            let gone = try box.radicale.request("DELETE", box.radicale.addressBookURL() + "p\(number).vcf")
            #expect(gone.status == 200 || gone.status == 204, "\(gone)")
        }
        let changed = Set((movedOn + movedBack).map { String($0.fileName.dropLast(4)) })
        let deleted = Set((180..<185).map { "p\($0)" })
        let new = Set(added.map { String($0.fileName.dropLast(4)) })

        // The sync runs while the rest is read, a page of 10 every 100 ms.
        let asked = try HTTPTestClient.request(port: box.port, method: "POST", path: "/api/sync")
        #expect(asked.status == 202, "\(asked.body)")
        var pages = 0
        var syncing = 0
        seen = try allPages(box, reader, limit: 10, pause: 100_000, first: cursor, collected: seen) {
            pages += 1
            if try box.status()["state"] as? String == "syncing" { syncing += 1 }
        }
        print("Of the \(pages) pages read after the sync was asked for, \(syncing) were read while the box synced")

        // In name order throughout (each page starts after the cursor), and each contact that the sync left alone
        // exactly once; a renamed one at most twice, a deleted or new one at most once.
        let names = seen.map { $0.name.lowercased() }
        #expect(names == names.sorted(), "\(names)")
        var counts: [String: Int] = [:]
        for contact in seen { counts[contact.uid, default: 0] += 1 }
        for number in 0..<200 {
            let uid = "p" + String(format: "%03d", number)
            if changed.contains(uid) {
                #expect((counts[uid] ?? 0) <= 2, "\(uid)")
            } else if deleted.contains(uid) {
                #expect((counts[uid] ?? 0) <= 1, "\(uid)")
            } else {
                #expect(counts[uid] == 1, "\(uid) seen \(counts[uid] ?? 0) times")
            }
        }
        for uid in new { #expect((counts[uid] ?? 0) <= 1, "\(uid)") }
        #expect(counts.keys.allSatisfy { $0.hasPrefix("p") }, "\(counts.keys.sorted())")

        // Once the sync is done, a paging from the start gives exactly the book as Radicale has it.
        try box.sync(until: "the sync to bring the changes") {
            let adams = try jsonObject(try box.curl("/api/contacts?q=Adam", reader).body)["contacts"] as? [Any]
            let gone = try box.curl("/api/contacts/p184", reader).status == 404
            return adams?.count == 5 && gone
        }
        let after = try allPages(box, reader, limit: 100)
        var expected = Set((0..<200).map { "p" + String(format: "%03d", $0) }).subtracting(deleted)
        expected.formUnion(new)
        #expect(after.count == 200 && Set(after.map(\.uid)) == expected)
        #expect(after.first?.name == "Adam 150" && after.last?.name == "Zoe 014", "\(after.map(\.name))")
        // The list changed: the old ETag gets the new page.
        let changedPage = try box.curl("/api/contacts?limit=5", reader, headers: ["If-None-Match: " + etag])
        #expect(changedPage.status == 200 && changedPage.headers["etag"] != etag)
    }

    @Test("a long poll wakes on a change; If-Match, read-only and revoked tokens refuse; PUT and DELETE reach Radicale")
    func changesAndWrites() throws {
        let box = try ContactsBox(cards: [
            ("ada.vcf", card("ada", "Ada Lovelace", "TEL:+44 20 7946 0000")),
            ("grace.vcf", card("grace", "Grace Hopper", "TEL:+1 555 0100")),
        ])
        let reader = try token(box, "reader")
        let writer = try token(box, "writer", write: true)
        let nobody = try box.curl("/api/contacts", nil)
        #expect(nobody.status == 401 && nobody.headers["www-authenticate"]?.hasPrefix("Bearer") == true)

        // The feed to its end.
        var since = 0
        while true {
            let page = try jsonObject(try box.curl("/api/changes?since=\(since)&limit=100", reader).body)
            let results = page["results"] as? [[String: Any]] ?? []
            since = page["last_seq"] as? Int ?? since
            if results.isEmpty { break }
        }
        #expect(since > 0)

        // A long poll waits; a change on the command line (another process: only the store knows) wakes it.
        let editor = try box.work.file("grace.sh", "#!/bin/sh\nsed -i 's/^TEL:.*/TEL:+1 555 0111/' \"$1\"\n")
        let woken = try longPoll(box, reader, since: since) {
            let edit = try contactbox(
                ["edit", "--db", box.work.db, "grace"],
                environment: ["TMPDIR": box.work.path, "EDITOR": "sh " + editor])
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        #expect(woken.uids == ["grace"], "\(woken)")
        since = woken.lastSeq

        // Another, woken by a contact made with PUT.
        let newbie = card("newbie", "Newbie Person", "TEL:+1 555 0199")
        var made: CurlResponse?
        let wokenByPut = try longPoll(box, reader, since: since) {
            made = try box.curl("/api/contacts/newbie", writer, method: "PUT", body: newbie, contentType: "text/vcard")
        }
        #expect(wokenByPut.uids == ["newbie"], "\(wokenByPut)")
        let created = try #require(made)
        #expect(created.status == 201, "\(created.body)")
        #expect(created.headers["location"] == "/api/contacts/newbie")
        #expect(try jsonObject(created.body)["created"] as? Bool == true)
        let newbieTag = try #require(created.headers["etag"])

        // A write names the version it read: a stale one gets 412, none 428; a GET answers 304 to its ETag.
        let read = try box.curl("/api/contacts/ada", reader)
        let adaTag = try #require(read.headers["etag"])
        let countess = card("ada", "Ada King", "TEL:+44 20 7946 0000")
        let put = try box.curl(
            "/api/contacts/ada", writer, method: "PUT", headers: ["If-Match: " + adaTag], body: countess,
            contentType: "text/vcard")
        #expect(put.status == 200, "\(put.body)")
        let newTag = try #require(put.headers["etag"])
        #expect(newTag != adaTag)
        let stale = try box.curl(
            "/api/contacts/ada", writer, method: "PUT", headers: ["If-Match: " + adaTag],
            body: card("ada", "Ada Byron"), contentType: "text/vcard")
        #expect(stale.status == 412, "\(stale.body)")
        let blind = try box.curl(
            "/api/contacts/ada", writer, method: "PUT", body: card("ada", "Ada Byron"), contentType: "text/vcard")
        #expect(blind.status == 428, "\(blind.body)")
        let staleDelete = try box.curl("/api/contacts/ada", writer, method: "DELETE", headers: ["If-Match: " + adaTag])
        #expect(staleDelete.status == 412, "\(staleDelete.body)")
        let unchanged = try box.curl("/api/contacts/ada", reader, headers: ["If-None-Match: " + newTag])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty, "\(unchanged.status)")

        // A read-only token cannot write, with the right If-Match or not.
        let refused = try box.curl(
            "/api/contacts/ada", reader, method: "PUT", headers: ["If-Match: " + newTag],
            body: card("ada", "Ada Byron"),
            contentType: "text/vcard")
        #expect(refused.status == 403, "\(refused.body)")
        let refusedDelete = try box.curl(
            "/api/contacts/ada", reader, method: "DELETE", headers: ["If-Match: " + newTag])
        #expect(refusedDelete.status == 403, "\(refusedDelete.body)")
        #expect(try box.curl("/api/contacts/ada", reader).headers["etag"] == newTag)

        // The next sync carries the new contact and the change to Radicale.
        try box.sync(until: "Newbie and Ada King on Radicale") {
            let book = try box.radicaleBook()
            return book.contains("UID:newbie") && book.contains("FN:Newbie Person") && book.contains("FN:Ada King")
        }
        #expect(!(try box.radicaleBook()).contains("FN:Ada Lovelace"))

        // Deleted with the hash it was made with: gone here at once, and from Radicale after the next sync.
        let deleted = try box.curl(
            "/api/contacts/newbie", writer, method: "DELETE", headers: ["If-Match: " + newbieTag])
        #expect(deleted.status == 200, "\(deleted.body)")
        #expect(try box.curl("/api/contacts/newbie", reader).status == 404)
        let trash = try jsonObject(try box.curl("/api/trash", reader).body)["contacts"] as? [[String: Any]]
        #expect(trash?.first?["uid"] as? String == "newbie", "\(trash ?? [])")
        try box.sync(until: "Newbie gone from Radicale") { !(try box.radicaleBook()).contains("UID:newbie") }
        #expect(try box.radicaleBook().contains("UID:grace"))

        // Revoked on the command line while the daemon runs: refused from then on; the other token still reads.
        let revoked = try contactbox(["token", "revoke", "reader", "--db", box.work.db])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let refusal = try waitUntil("the revoked token to be refused", seconds: 5) { () throws -> CurlResponse? in
            let answer = try box.curl("/api/contacts", reader)
            return answer.status == 200 ? nil : answer
        }
        #expect(refusal.status == 401, "\(refusal.body)")
        #expect(refusal.headers["www-authenticate"]?.contains("invalid_token") == true, "\(refusal.headers)")
        #expect(try box.curl("/api/contacts", writer).status == 200)
        let log = try box.work.read("daemon.log")
        #expect(!log.contains(reader.dropFirst("Authorization: Bearer ".count)), "a token is never logged")
    }

    struct Woken: CustomStringConvertible {
        var uids: [String]
        var lastSeq: Int
        /// From the change's end to the answer, as curl timed the request.
        var afterChange: Double
        var description: String { "\(uids) last_seq \(lastSeq), \(Int(afterChange * 1000)) ms after the change" }
    }

    /// A long poll (`timeout` 20 s) with curl in the background; `change` runs once it has waited a second. What
    /// woke it, after the poll had waited, before its timeout.
    func longPoll(
        _ box: ContactsBox, _ credential: String, since: Int, change: () throws -> Void
    ) throws -> Woken {
        let output = box.work.path + "/longpoll-\(since).json"
        let timing = box.work.path + "/longpoll-\(since).timing"
        let started = Date()
        let poll = try ChildProcess(
            path: "/usr/bin/curl",
            arguments: [
                "-s", "-S", "-o", output, "-w", "%{http_code} %{time_total}", "--max-time", "60", "-H", credential,
                box.page + "/api/changes?since=\(since)&feed=longpoll&timeout=20000",
            ], logPath: timing)
        defer { poll.terminate(grace: 1) }
        usleep(1_000_000)
        #expect(poll.isRunning, "with nothing after since \(since), the long poll waits")
        try change()
        let changed = Date().timeIntervalSince(started)
        #expect(poll.waitForExit() == 0)
        let words = try String(contentsOfFile: timing, encoding: .utf8).split(separator: " ")
        #expect(words.first == "200", "\(words)")
        let total = Double(words.last ?? "") ?? .infinity
        #expect(total < 20, "woken by the change, before its timeout of 20 s (\(total) s)")
        let answer = try jsonObject(try String(contentsOfFile: output, encoding: .utf8))
        let results = answer["results"] as? [[String: Any]] ?? []
        let woken = Woken(
            uids: results.compactMap { $0["uid"] as? String }, lastSeq: answer["last_seq"] as? Int ?? since,
            afterChange: total - changed)
        print("A long poll was answered \(woken)")
        return woken
    }
}

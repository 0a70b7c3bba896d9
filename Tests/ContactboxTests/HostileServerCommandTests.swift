import Foundation
import TestSupport
import Testing

extension HostileCardDAVServer {
    convenience init(_ scenario: String, in work: Workspace) throws {
        try self.init(scenario, logDirectory: work.path)
    }
}

/// `contactbox sync` against a server whose answers are broken or hostile in one place: the bad item costs that
/// item alone, a bad answer ends the remote's pass with exit 76 and a message that says what the server did, and
/// nothing is written outside the book or lost from the store either way.
@Suite("contactbox sync against a hostile CardDAV server", .serialized)
struct HostileServerCommandTests {
    func configure(_ work: Workspace, _ server: HostileCardDAVServer) throws -> String {
        try work.carddavConfig(name: "hostile", url: server.bookURL, username: "user", password: "secret")
    }

    /// What is on the box, by name.
    func names(_ work: Workspace) throws -> [String] {
        try contactbox(["list", "--db", work.db]).stdout.split(separator: "\n").map {
            String($0.split(separator: "\t").first ?? "")
        }.sorted()
    }

    @Test(
        "one bad item costs that item alone; the rest of the listing syncs, twice, and nothing leaves the book",
        arguments: [
            ("bad-utf8-card", 0, ["Bad été", "Good One", "Good Two", "Mine"]),
            ("control-charref", 0, ["Good One", "Good Two", "Mine", "Vertical\\u{B}Tab"]),
            ("bad-utf8-href", 1, ["Good One", "Good Two", "Mine"]),
            ("bad-utf8-etag", 1, ["Good One", "Good Two", "Mine"]),
            ("crlf-etag", 1, ["Good One", "Good Two", "Mine"]),
        ])
    func oneBadItem(scenario: String, status: Int32, expected: [String]) throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer(scenario, in: work)
        let config = try configure(work, server)
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("mine", "Mine"))])
        for run in 1...2 {
            let result = try contactbox(["sync", "--config", config])
            let output = result.stdout + result.stderr
            #expect(result.status == status, "run \(run): \(output)")
            #expect(output.contains("hostile: synced:") && output.contains("0 deleted"), "\(output)")
            // Reported on every run it fails, once, naming it; the card fetched alone is noted when it is read,
            // and then stored with the GET's ETag, so the second run has nothing to say about it.
            let mentions = output.components(separatedBy: "/book/bad").count - 1
            let fetchedAlone = ["bad-utf8-card": 2, "control-charref": 1][scenario]
            let expectedMentions = fetchedAlone.map { run == 1 ? $0 : 0 } ?? 1
            #expect(mentions == expectedMentions, "run \(run): \(output)")
            #expect(try names(work) == expected)
        }
        let requests = server.requests()
        let lines = requests.filter { $0.contains(" HTTP/1.1") }
        #expect(
            lines.allSatisfy { $0.split(separator: " ").dropFirst().first?.hasPrefix("/book/") == true }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("PUT") } == ["PUT /book/mine.vcf HTTP/1.1"])
        #expect(!lines.contains { $0.hasPrefix("DELETE") })
        #expect(!requests.contains { $0.lowercased().hasPrefix("x-injected") })
        let check = try contactbox(["check", "--db", work.db])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test("an item whose href is 200 KB long is an error naming its start, on every run, and the token stays behind it")
    func overlongHref() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("long-href", in: work)
        let config = try configure(work, server)
        for run in 1...2 {
            let result = try contactbox(["sync", "--config", config])
            let output = result.stdout + result.stderr
            #expect(result.status == 1, "run \(run): \(output)")
            #expect(output.contains("2 downloaded") == (run == 1) && output.contains("1 errors"), "\(output)")
            // Named by its start, bounded: one line of a few hundred bytes, not 200 KB.
            let lines = output.split(separator: "\n").filter { $0.contains("its href is longer than 64 KiB") }
            #expect(lines.count == 1, "run \(run): \(output.prefix(2000))")
            #expect(lines.allSatisfy { $0.contains("/book/xxxxxxxx") && $0.utf8.count < 400 }, "\(lines)")
        }
        #expect(try names(work) == ["Good One", "Good Two"])
        // Listed in, accounted for: two synced, one error; the second run asked again from the start.
        #expect(server.requests().filter { $0.hasPrefix("SYNC-FROM") } == ["SYNC-FROM ", "SYNC-FROM "])
    }

    @Test("a multiget cut off in the middle of its body is sent again, with the retries, and the sync ends well")
    func cutMultiget() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("cut-multiget", in: work)
        let config = try configure(work, server)
        let result = try contactbox(["sync", "--config", config])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try names(work) == ["Good One", "Good Two"])
        let multigets = server.requests().filter { $0.hasPrefix("REPORT") }.count
        #expect(multigets >= 4, "the sync-collection, the multiget sent ahead and sent again, both cut, and a retry")
    }

    @Test("a card deleted on a server that answers any sync token with every card is deleted here by the next sync")
    func forgottenTokens() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("forgets-tokens", in: work)
        let config = try configure(work, server)
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("mine", "Mine"))])
        for run in 1...2 {
            let result = try contactbox(["sync", "--config", config])
            #expect(result.status == 0, "run \(run): \(result.stdout)\(result.stderr)")
        }
        #expect(try names(work) == ["Good One", "Good Two", "Mine"])

        // Another client deletes a card; the server's answer to the saved token lists the two others.
        #expect(try curlRequest("DELETE", server.bookURL + "good1.vcf", user: ("user", "secret")).status == 204)
        let result = try contactbox(["sync", "--config", config])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("hostile: synced:") && result.stdout.contains("1 deleted"), "\(result.stdout)")
        #expect(try names(work) == ["Good Two", "Mine"])
        let history = try contactbox(["history", "--db", work.db, "good1"])
        #expect(history.stdout.contains("deleted"), "\(history.stdout)")
        // The other client's DELETE alone: the box deleted nothing on the server.
        #expect(server.requests().filter { $0.hasPrefix("DELETE") } == ["DELETE /book/good1.vcf HTTP/1.1"])
    }

    @Test(
        "an answer we refuse ends the pass with 76 and says what the server sent; the store is untouched",
        arguments: [
            ("entities", "entities are refused"), ("deep", "nested more than 64 elements deep"),
            ("gzip", "Content-Encoding: gzip"), ("gzip-unlabelled", "gzip-compressed body that does not say so"),
        ])
    func refusedAnswer(scenario: String, message: String) throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer(scenario, in: work)
        let config = try configure(work, server)
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("mine", "Mine"))])
        let result = try contactbox(["sync", "--config", config])
        #expect(result.status == 76, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("could not be reached") && !result.stderr.contains("no CardDAV address book"))
        #expect(!result.stderr.contains("Document is empty") && !result.stderr.contains("not defined"))
        #expect(!server.requests().contains { $0.hasPrefix("PUT") || $0.hasPrefix("DELETE") })
        #expect(try names(work) == ["Mine"])
        #expect(try contactbox(["check", "--db", work.db]).status == 0)
    }
}

import ContactStore
import Foundation
import TestSupport
import Testing

/// `contactbox sync --full` against a real Radicale: the whole book compared, whatever the saved sync token says.
@Suite(
    "contactbox sync --full, through the executables", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct FullSyncCommandTests {
    /// Radicale's sync token for the book now, read over HTTP (not through the code under test).
    static func currentToken(_ server: RadicaleServer) throws -> String {
        let (status, body) = try server.request(
            "PROPFIND", server.addressBookURL(),
            body: #"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><sync-token/></prop></propfind>"#,
            contentType: "application/xml; charset=utf-8", headers: ["Depth: 0"])
        #expect(status == 207, "\(body)")
        let start = try #require(body.range(of: "sync-token>"))
        let end = try #require(body[start.upperBound...].firstIndex(of: "<"))
        return String(body[start.upperBound..<end])
    }

    @Test("a deletion the changes since the saved token do not name is found by sync --full, and only by it")
    func fullFindsMissedDeletion() throws {
        let box = try RestoreCommandSyncTests.Box()
        try box.importCards(RestoreCommandSyncTests.cards(0..<4, name: "Person"))
        // Twice: from the second on, the saved token covers the cards the box created (`settleListing`).
        for run in 1...2 {
            let result = try box.run(["sync", "--config", box.config, "--remote", "radicale"])
            #expect(result.status == 0, "run \(run): \(result.stderr)")
        }

        // Deleted on the server, and the saved token moved past the deletion: change tracking that missed it, as
        // on a server that forgot its tokens. The changes since that token name nothing.
        let deleted = try box.server.request("DELETE", box.server.addressBookURL() + "p2.vcf")
        #expect(deleted.status == 200 || deleted.status == 204, "\(deleted.body)")
        let token = try Self.currentToken(box.server)
        do {
            let store = try ContactStore(path: box.db)
            let remote = try #require(try store.remote(named: "radicale"))
            try store.setSyncToken(token, remoteID: remote.id)
        }
        let plain = try box.run(["sync", "--config", box.config, "--remote", "radicale"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("0 deleted"), "\(plain.stdout)")
        #expect(try box.run(["list", "--db", box.db]).stdout.contains("Person 2"))

        let full = try box.run(["sync", "--config", box.config, "--remote", "radicale", "--full"])
        #expect(full.status == 0, "\(full.stdout)\(full.stderr)")
        #expect(full.stdout.contains("1 deleted"), "\(full.stdout)")
        let list = try box.run(["list", "--db", box.db])
        #expect(list.stdout.split(separator: "\n").count == 3, "\(list.stdout)")
        #expect(!list.stdout.contains("Person 2"))
        let history = try box.run(["history", "--db", box.db, "p2"])
        #expect(history.stdout.contains("deleted"), "\(history.stdout)")
        #expect(try box.serverNames().count == 3)
    }
}

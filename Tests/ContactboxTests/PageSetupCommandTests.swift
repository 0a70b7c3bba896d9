import Foundation
import TestSupport
import Testing

/// A box with no address book, set up over its page's API as the page's script does it: paired with the one-time
/// code, then an address book found on a real Radicale from its root URL, tested, added, and synced by the daemon.
@Suite(
    "Setting up from the page, end to end", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(5)))
struct PageSetupCommandTests {
    @Test("from needs setup: paired, a book found, added, synced, given a new password and name, removed; a password")
    func setUp() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook()
        try server.seedCards([("ann.vcf", card("ann", "Ann Example"))])
        try FileManager.default.createDirectory(atPath: work.path + "/store", withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let config = try work.file(
            "contactbox.toml", "store = \"\(work.db)\"\n\(Workspace.daemonSettings(port: port))\n")
        let daemon = try RunCommandTests().start(config, log: work.path + "/daemon.log")
        defer { _ = RunCommandTests().stop(daemon) }
        let setup = RunCommandTests().waitForStatus(port: port) { $0.contains("\"state\":\"setup\"") }
        #expect(setup.contains("\"summary\":\"Needs setup: no address book yet\""), "\(setup)")

        // Paired with the code, as a box without a button is.
        let code = try #require(
            try contactbox(["pair", "--db", work.db]).stdout.split(separator: "\n").first?.split(separator: " ").last)
        let headers = try pairedHeaders(code: String(code), port: port)
        let cookie = try #require(headers.first { $0.0 == "Cookie" }?.1)
        func post(_ form: String) throws -> HTTPTestResponse {
            try HTTPTestClient.request(
                port: port, method: "POST", path: "/api/setup",
                headers: headers + [("Content-Type", "application/x-www-form-urlencoded")], body: form)
        }
        /// GET /api/setup until the step is over.
        func settled() throws -> String {
            try waitUntil("the setup step to end", seconds: 60) {
                let body = try HTTPTestClient.request(port: port, path: "/api/setup", headers: [("Cookie", cookie)])
                    .body
                let running = ["finding", "adding", "checking"].contains { body.contains("\"phase\":\"\($0)\"") }
                return running ? nil : body
            }
        }
        let root = server.baseURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let login = "provider=carddav&address=\(root)&username=\(RadicaleServer.username)"

        #expect(try post("action=find&\(login)&password=wrong").status == 202)
        let refused = try settled()
        #expect(refused.contains("\"phase\":\"failed\""), "\(refused)")
        #expect(refused.contains("the server refused the login: make a new app password"), "\(refused)")
        #expect(!refused.contains("wrong"))

        #expect(try post("action=find&\(login)&password=\(RadicaleServer.password)").status == 202)
        let found = try settled()
        let book = server.addressBookURL()
        #expect(found.contains("\"phase\":\"found\""), "\(found)")
        #expect(found.contains("\"url\":\"\(book)\""), "\(found)")
        #expect(!found.contains(RadicaleServer.password))

        let books = book.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        #expect(try post("action=add&books=\(books)").status == 202)
        let added = try settled()
        #expect(added.contains("\"phase\":\"added\""), "\(added)")
        #expect(added.contains("\"added\":[\"contacts\"]"), "\(added)")

        // The daemon reloads, and its first sync of the new book brings Ann down.
        let synced = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"contacts\":1") && $0.contains("\"state\":\"idle\"")
        }
        #expect(synced.contains("\"name\":\"contacts\",\"kind\":\"carddav\",\"last_result\":\"ok\""), "\(synced)")
        #expect(try contactbox(["show", "--db", work.db, "ann"]).stdout.contains("Ann Example"))
        let settings = try work.read("store/settings.toml")
        #expect(!settings.contains(RadicaleServer.password))
        let check = try contactbox(["check-config", "--config", config])
        #expect(check.stdout.contains("settings.toml"), "\(check.stdout)")

        // A new app password: a wrong one is refused in words, and the old one stays; the right one is tested first.
        let passwordFile = work.path + "/store/secrets/contacts.password"
        #expect(try post("action=password&remote=contacts&password=wrong").status == 202)
        let wrong = try settled()
        #expect(wrong.contains("\"phase\":\"failed\""), "\(wrong)")
        #expect(wrong.contains("the server refused the login"), "\(wrong)")
        #expect(try String(contentsOfFile: passwordFile, encoding: .utf8) == RadicaleServer.password)
        #expect(try post("action=password&remote=contacts&password=\(RadicaleServer.password)").status == 202)
        #expect(try settled().contains("\"phase\":\"replaced\""))

        /// A change with the version read just before; `authorization` once the page asks for a password.
        func change(_ form: String, authorization: [(String, String)] = []) throws -> HTTPTestResponse {
            let read = try HTTPTestClient.request(
                port: port, path: "/api/settings", headers: [("Cookie", cookie)] + authorization)
            let version = try #require(
                read.body.split(separator: "\"").drop { $0 != "version" }.dropFirst(2).first.map(String.init))
            return try HTTPTestClient.request(
                port: port, method: "POST", path: "/api/settings",
                headers: headers + authorization + [("Content-Type", "application/x-www-form-urlencoded")],
                body: form + "&version=\(version)")
        }
        // Renamed: the store's state and history follow, so the run that brought Ann is the renamed book's.
        #expect(try change("action=rename&remote=contacts&value=family").status == 200)
        let renamed = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"name\":\"family\",\"kind\":\"carddav\",\"last_result\":\"ok\"")
        }
        #expect(!renamed.contains("\"name\":\"contacts\""), "\(renamed)")
        let runs = try contactbox(["runs", "--db", work.db]).stdout
        #expect(runs.contains("sync family") && !runs.contains("sync contacts"), "\(runs)")
        #expect(FileManager.default.fileExists(atPath: work.path + "/store/secrets/family.password"))
        #expect(!FileManager.default.fileExists(atPath: passwordFile))

        // Removed: the page has no address book again, the contact and its history stay, nothing on the server moves.
        #expect(try change("action=remove&remote=family").status == 200)
        let removed = RunCommandTests().waitForStatus(port: port, seconds: 60) { $0.contains("\"remotes\":[]") }
        #expect(removed.contains("\"state\":\"setup\""), "\(removed)")
        #expect(removed.contains("\"contacts\":1"), "\(removed)")
        #expect(try contactbox(["runs", "--db", work.db]).stdout.contains("sync (removed remote)"))
        let onServer = try FileManager.default.contentsOfDirectory(atPath: server.collectionFolder())
        #expect(onServer.filter { $0.hasSuffix(".vcf") } == ["ann.vcf"])

        // The page's password: asked for from the next request on, without a restart.
        #expect(try change("action=page-password&value=kitchen%20door").status == 200)
        try waitUntil("the page to ask for its password", seconds: 30) {
            try HTTPTestClient.request(port: port, path: "/api/status").status == 401 ? true : nil
        }
        let basic = "Basic " + Data("any:kitchen door".utf8).base64EncodedString()
        #expect(
            try HTTPTestClient.request(port: port, path: "/api/status", headers: [("Authorization", basic)]).status
                == 200)
        // Changed again (the same file, another password): the old one is refused from then on.
        #expect(
            try change("action=page-password&value=back%20door", authorization: [("Authorization", basic)]).status
                == 200)
        let newBasic = "Basic " + Data("any:back door".utf8).base64EncodedString()
        try waitUntil("the new password to be asked for", seconds: 30) {
            try HTTPTestClient.request(port: port, path: "/api/status", headers: [("Authorization", newBasic)]).status
                == 200 ? true : nil
        }
        #expect(
            try HTTPTestClient.request(port: port, path: "/api/status", headers: [("Authorization", basic)]).status
                == 401)
        #expect(!(try work.read("daemon.log")).contains("kitchen door"))
        #expect(!(try work.read("daemon.log")).contains("back door"))
    }
}

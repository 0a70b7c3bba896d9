import Foundation
import TestSupport
import Testing

/// `contactbox sync` as a person runs it: a configuration file, a password file, a real Radicale and a folder.
@Suite(
    "contactbox sync, discover and check-config", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct SyncCommandTests {
    func configure(_ work: Workspace, server: RadicaleServer, folderName: String = "nas") throws -> String {
        try work.carddavConfig(
            name: "radicale", url: server.addressBookURL(), username: RadicaleServer.username,
            password: RadicaleServer.password,
            blocks: """
                [[remote]]
                name = "nas"
                kind = "vdir"
                folder = "\(work.path)/\(folderName)"
                create_folder = true
                """)
    }

    @Test("contacts imported on the box reach the server and the folder, and a server edit comes back")
    func syncRoundTrip() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook()
        let config = try configure(work, server: server)
        let checked = try contactbox(["check-config", "--config", config])
        #expect(checked.status == 0, "\(checked.stderr)")
        // The full check is the daemon's; `sync` compares in full when asked.
        #expect(checked.stdout.contains("daemon: syncs every 15m and compares in full every 1d"), "\(checked.stdout)")
        #expect(checked.stdout.contains("contactbox sync --full"))
        _ = try contactbox([
            "import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann") + card("bob", "Bob")),
        ])

        let first = try contactbox(["sync", "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout.contains("radicale: synced: store: 0 downloaded, 0 updated, 0 deleted; server: 2 uploaded"))
        #expect(first.stdout.contains("nas: synced: store: 0 downloaded, 0 updated, 0 deleted; server: 2 uploaded"))
        #expect(FileManager.default.fileExists(atPath: work.path + "/nas/ann.vcf"))
        let onServer = try server.request("GET", server.addressBookURL() + "bob.vcf")
        #expect(onServer.status == 200 && onServer.body.contains("FN:Bob"))

        _ = try server.request(
            "PUT", server.addressBookURL() + "bob.vcf", body: card("bob", "Bob", "NOTE:from the phone"),
            contentType: "text/vcard")
        let second = try contactbox(["sync", "--config", config])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try work.read("nas/bob.vcf").contains("NOTE:from the phone"))
        #expect(try contactbox(["show", "--db", work.db, "bob"]).stdout.contains("NOTE:from the phone"))

        let discovered = try contactbox(["discover", "--config", config, "--remote", "radicale"])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.stdout.contains(server.addressBookURL()))
        #expect(discovered.stdout.contains("sync-collection"))
    }

    @Test("with three remotes, a contact added in the last reaches the other two in one sync")
    func threeRemotesOnePass() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook()
        let config = try configure(work, server: server)
        try FileManager.default.createDirectory(atPath: work.path + "/usb", withIntermediateDirectories: true)
        try
            (try String(contentsOfFile: config, encoding: .utf8)
            + "[[remote]]\nname = \"usb\"\nkind = \"vdir\"\nfolder = \"\(work.path)/usb\"\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try contactbox(["sync", "--config", config]).status == 0)

        _ = try work.file("usb/stick.vcf", card("stick", "Stefan Stick"))
        let result = try contactbox(["sync", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        let onServer = try server.request("GET", server.addressBookURL() + "stick.vcf")
        #expect(onServer.status == 200 && onServer.body.contains("FN:Stefan Stick"))
        #expect(try work.read("nas/stick.vcf").contains("FN:Stefan Stick"))
        // The follow-up turns: the two remotes before the stick, once each.
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("radicale: synced") }.count == 2)
        #expect(lines.filter { $0.hasPrefix("usb: synced") }.count == 1)
    }

    @Test("held deletions exit 10 until --confirm-deletions; a wrong password exits 77 without showing it")
    func exitCodes() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook()
        let config = try configure(work, server: server)
        let cards = (0..<8).map { card("g\($0)", "Guest \($0)") }.joined()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", cards)])
        #expect(try contactbox(["sync", "--config", config, "--remote", "radicale"]).status == 0)
        for index in 0..<8 { _ = try server.request("DELETE", server.addressBookURL() + "g\(index).vcf") }
        let held = try contactbox(["sync", "--config", config, "--remote", "radicale"])
        #expect(held.status == 10)
        #expect(held.stderr.contains("nothing was deleted"))
        #expect(try contactbox(["list", "--db", work.db]).stdout.split(separator: "\n").count == 8)
        let confirmed = try contactbox(["sync", "--config", config, "--remote", "radicale", "--confirm-deletions"])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(try contactbox(["list", "--db", work.db]).stdout.isEmpty)

        chmod(try work.file("radicale.password", "not-the-password\n"), 0o600)
        let refused = try contactbox(["sync", "--config", config, "--remote", "radicale"])
        #expect(refused.status == 77, "\(refused.stdout)\(refused.stderr)")
        #expect(!refused.stderr.contains("not-the-password"))

        server.stop()
        let unreachable = try contactbox(["sync", "--config", config, "--remote", "radicale"])
        #expect(unreachable.status == 69, "\(unreachable.stdout)\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("radicale"), "\(unreachable.stderr)")
    }

    @Test("a configuration mistake, or a password file others can read, exits 78 and says where")
    func badConfiguration() throws {
        let work = try Workspace()
        let config = try work.file(
            "bad.toml",
            "[[remote]]\nname = \"x\"\nkind = \"carddav\"\nurl = \"https://x.example/\"\nconflict = \"oldest\"\n")
        let result = try contactbox(["sync", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("bad.toml:5"))

        let server = try RadicaleServer()
        let config2 = try configure(work, server: server)
        chmod(work.path + "/radicale.password", 0o644)
        let open = try contactbox(["sync", "--config", config2, "--remote", "radicale"])
        #expect(open.status == 78)
        #expect(open.stderr.contains("chmod 600"))
    }
}

@Suite("contactbox import --update", .timeLimit(.minutes(10)))
struct ImportUpdateTests {
    @Test("--update replaces a contact with the same UID and keeps the old version in history")
    func updateReplaces() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("a.vcf", card("u", "Uma", "TEL:1"))])
        let result = try contactbox([
            "import", "--update", "--db", work.db, try work.file("b.vcf", card("u", "Uma", "TEL:2")),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("updated 1"))
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Uma\tu\n")
        #expect(try contactbox(["show", "--db", work.db, "u"]).stdout.contains("TEL:2"))
    }
}

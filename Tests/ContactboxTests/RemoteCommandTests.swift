import Foundation
import TestSupport
import Testing

/// `contactbox` with `input` on its standard input (a pipe's worth, as `printf ... |` gives it).
func contactbox(_ arguments: [String], input: String) throws -> CommandResult {
    let outcome = try ChildProcess.run(contactboxBinary, arguments, input: Array(input.utf8))
    return CommandResult(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
}

/// A configuration of the administrator's with the store in `work` and `blocks` (remotes of its own).
func administratorConfig(_ work: Workspace, blocks: String = "") throws -> String {
    try work.file("contactbox.toml", "store = \"\(work.db)\"\n\n\(blocks)\n")
}

/// `contactbox remote add|list|remove` as a person on SSH uses them, against a real Radicale: discovery from the
/// server's root, the test, the settings file, a sync, and the refusals in the household's words.
@Suite(
    "contactbox remote with a real server", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(5)))
struct RemoteCommandTests {
    @Test("a book found from the server's root is tested, saved, listed, synced and removed, its contacts kept")
    func addSyncRemove() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook()
        try server.seedCards([("ann.vcf", card("ann", "Ann Example"))])
        let config = try administratorConfig(work)
        let settingsPath = work.path + "/store/settings.toml"
        let add = [
            "remote", "add", "--config", config, "--provider", "carddav", server.baseURL, "--username",
            RadicaleServer.username, "--all",
        ]

        let wrong = try contactbox(add, input: "not-the-password\n")
        #expect(wrong.status == 77, "\(wrong)")
        #expect(wrong.stderr.contains("the server refused the login: make a new app password"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("not-the-password") && !wrong.stdout.contains("not-the-password"))
        #expect(!FileManager.default.fileExists(atPath: settingsPath), "nothing is saved")

        let added = try contactbox(add, input: RadicaleServer.password + "\n")
        #expect(added.status == 0, "\(added)")
        let book = server.addressBookURL()
        #expect(added.stdout.contains("1. \(book)\tcontacts\n"), "\(added.stdout)")
        #expect(added.stderr.contains("\(book): the test worked, 1 contact"), "\(added.stderr)")
        // Plain http to the box itself is no warning; to another machine it would be.
        #expect(!added.stderr.contains("plain http"), "\(added.stderr)")
        #expect(
            added.stdout.hasSuffix("added contacts: the daemon picks it up after `systemctl reload contactbox`\n"),
            "\(added.stdout)")
        let settings = try work.read("store/settings.toml")
        #expect(settings.contains("url = \"\(book)\""), "\(settings)")
        #expect(!settings.contains(RadicaleServer.password))
        let passwordFile = work.path + "/store/secrets/contacts.password"
        #expect(try work.read("store/secrets/contacts.password") == RadicaleServer.password)
        let mode = try FileManager.default.attributesOfItem(atPath: passwordFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A wrong password for a second book is refused too, and leaves the saved settings as they were.
        let again = try contactbox(add, input: "wrong\n")
        #expect(again.status == 77, "\(again)")
        #expect(try work.read("store/settings.toml") == settings)
        #expect(!FileManager.default.fileExists(atPath: work.path + "/store/secrets/contacts-2.password"))

        let listed = try contactbox(["remote", "list", "--config", config])
        #expect(listed.status == 0, "\(listed)")
        let line = try #require(listed.stdout.split(separator: "\n").first.map(String.init))
        #expect(line.hasPrefix("contacts\tcarddav\t\(book)\tsynced\t"), "\(line)")
        #expect(line.hasSuffix("settings.toml:\(lineNumber(of: "[[remote]]", in: settings))"), "\(line)")

        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.stdout.contains("contacts: synced: store: 1 downloaded"), "\(synced.stdout)")

        let unconfirmed = try contactbox(["remote", "remove", "--config", config, "contacts"])
        #expect(unconfirmed.status == 64, "\(unconfirmed)")
        let removed = try contactbox(["remote", "remove", "--config", config, "contacts", "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(
            removed.stdout.contains(
                "removed contacts: its contacts stay in the store with their history, and nothing on the server is "
                    + "touched"), "\(removed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: passwordFile))
        #expect(!(try work.read("store/settings.toml")).contains("[[remote]]"))
        let kept = try contactbox(["list", "--db", work.db])
        #expect(kept.stdout.contains("Ann Example"), "\(kept)")
        #expect(try server.request("GET", book + "ann.vcf").status == 200)
        let empty = try contactbox(["remote", "list", "--config", config])
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty)")
        #expect(empty.stderr.contains("no address book is set up yet"), "\(empty.stderr)")
    }

    @Test("of two books, --book adds the one named and --all the other; check-config shows both with their lines")
    func severalBooks() throws {
        let work = try Workspace()
        let server = try RadicaleServer()
        try server.createAddressBook("contacts")
        try server.createAddressBook("family")
        let config = try administratorConfig(work)
        let add = ["remote", "add", "--config", config, server.baseURL, "--username", RadicaleServer.username]
        let scripted = try contactbox(add, input: RadicaleServer.password + "\n")
        #expect(scripted.status == 64, "\(scripted)")
        #expect(scripted.stderr.contains("2 address books were found: choose with --all or --book URL"))
        let family = server.addressBookURL("family")
        let one = try contactbox(add + ["--book", family], input: RadicaleServer.password + "\n")
        #expect(one.status == 0, "\(one)")
        #expect(one.stdout.hasSuffix("added family: the daemon picks it up after `systemctl reload contactbox`\n"))
        // --all now finds the family book set up already, and adds nothing.
        let all = try contactbox(add + ["--all"], input: RadicaleServer.password + "\n")
        #expect(all.status == 78, "\(all)")
        #expect(all.stderr.contains("\(family) is set up already, as family"), "\(all.stderr)")
        let rest = try contactbox(
            add + ["--book", server.addressBookURL("contacts"), "--name", "home"], input: RadicaleServer.password + "\n"
        )
        #expect(rest.status == 0, "\(rest)")
        let checked = try contactbox(["check-config", "--config", config])
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.stdout.contains("remote \"family\" (\(work.path)/store/settings.toml:4):"), "\(checked.stdout)")
        #expect(checked.stdout.contains("remote \"home\" (\(work.path)/store/settings.toml:"), "\(checked.stdout)")
        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.stdout.contains("family: synced") && synced.stdout.contains("home: synced"), "\(synced)")
    }

    @Test("a server that is not there is unreachable, in words, with exit 69 and nothing saved")
    func unreachable() throws {
        let work = try Workspace()
        let config = try administratorConfig(work)
        let port = try freeLoopbackPort()
        let result = try contactbox(
            ["remote", "add", "--config", config, "http://127.0.0.1:\(port)/", "--username", "a", "--all"],
            input: "pw\n")
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("the server cannot be reached"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.path + "/store/settings.toml"))
    }

    @Test("a server whose certificate authority the box does not know is refused, and taken with --ca-file")
    func certificate() throws {
        let work = try Workspace()
        let server = try RadicaleServer(tls: .trusted())
        try server.createAddressBook()
        let config = try administratorConfig(work)
        let add = [
            "remote", "add", "--config", config, server.baseURL, "--username", RadicaleServer.username, "--all",
        ]
        let refused = try contactbox(add, input: RadicaleServer.password + "\n")
        #expect(refused.status == 69, "\(refused)")
        #expect(
            refused.stderr.contains(
                "the server's certificate was not accepted: the server's certificate (127.0.0.1) is signed by a "
                    + "certificate authority this box does not trust"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.path + "/store/settings.toml"))
        let authority = try #require(server.tls?.authority)
        let added = try contactbox(add + ["--ca-file", authority], input: RadicaleServer.password + "\n")
        #expect(added.status == 0, "\(added)")
        #expect(try work.read("store/settings.toml").contains("ca_file = \"\(authority)\""))
        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced)")
    }

    private func lineNumber(of text: String, in file: String) -> Int {
        (file.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == text } ?? -1) + 1
    }
}

/// `contactbox remote` beside the administrator's file, with folders: no server needed.
@Suite("contactbox remote with folders and the administrator's file", .timeLimit(.minutes(2)))
struct RemoteFolderCommandTests {
    @Test("a folder is added under its name, listed beside /etc's remote, which cannot be removed from here")
    func folderBesideAdministrator() throws {
        let work = try Workspace()
        let nas = try work.file("nas/a.vcf", card("a", "A"))
        _ = nas
        let config = try administratorConfig(
            work,
            blocks: """
                [[remote]]
                name = "nas"
                kind = "vdir"
                folder = "\(work.path)/nas"
                """)
        _ = try work.file("Nas/b.vcf", card("b", "B"))
        let added = try contactbox(
            ["remote", "add", "--config", config, "--provider", "folder", work.path + "/Nas", "--all"], input: "")
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.contains("1. \(work.path)/Nas\tNas\t1 contact\n"), "\(added.stdout)")
        // "nas" is the administrator's: the folder "Nas" becomes nas-2.
        #expect(added.stdout.contains("added nas-2: "), "\(added.stdout)")
        let listed = try contactbox(["remote", "list", "--config", config])
        #expect(
            listed.stdout
                == "nas\tvdir\t\(work.path)/nas\tsynced\t\(config):3, fixed by the administrator\n"
                + "nas-2\tvdir\t\(work.path)/Nas\tsynced\t\(work.path)/store/settings.toml:4\n", "\(listed)")
        let refused = try contactbox(["remote", "remove", "--config", config, "nas", "--yes"])
        #expect(refused.status == 78, "\(refused)")
        #expect(
            refused.stderr
                == "contactbox: nas is set by the administrator in \(config): remove it there\n")
        _ = try work.file("Other/c.vcf", card("c", "C"))
        let twice = try contactbox(
            ["remote", "add", "--config", config, "--provider", "folder", work.path + "/Nas/", "--all"], input: "")
        #expect(twice.status == 78, "\(twice)")
        #expect(twice.stderr.contains("is set up already, as nas-2"), "\(twice.stderr)")
        let named = try contactbox(
            [
                "remote", "add", "--config", config, "--provider", "folder", work.path + "/Other", "--all", "--name",
                "nas",
            ],
            input: "")
        #expect(named.status == 78, "\(named)")
        #expect(named.stderr.contains("nas is set by the administrator"), "\(named.stderr)")
        let missing = try contactbox(
            ["remote", "add", "--config", config, "--provider", "folder", work.path + "/gone", "--all"], input: "")
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr.contains("does not exist: create it, or mount the disk"), "\(missing.stderr)")
    }
}

/// `contactbox remote add` against the stand-in server of Fixtures/hostile_carddav.py: each refusal in the
/// household's words, with its exit code, and nothing saved.
@Suite("contactbox remote add's words for what went wrong", .serialized, .timeLimit(.minutes(2)))
struct RemoteAddWordsTests {
    func add(_ work: Workspace, _ url: String, _ more: [String] = ["--all"]) throws -> CommandResult {
        let config = try administratorConfig(work)
        return try contactbox(["remote", "add", "--config", config, url, "--username", "user"] + more, input: "pw\n")
    }

    @Test("a refused login, a refused account, a web page, nothing there and a calendar each say so")
    func words() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let login = try add(work, base + "/locked/")
        #expect(login.status == 77, "\(login)")
        #expect(
            login.stderr == "contactbox: the server refused the login: make a new app password (PROPFIND /locked/: "
                + "401 Unauthorized)\n")
        let account = try add(work, base + "/other/")
        #expect(account.status == 77, "\(account)")
        #expect(account.stderr.contains("the server refused access to this account"), "\(account.stderr)")
        // Discovery from a wrong URL still lists the server's books; the one chosen by hand is tested.
        let missing = try add(work, base + "/nosuch/", ["--book", base + "/nosuch/"])
        #expect(missing.status == 78, "\(missing)")
        #expect(
            missing.stderr.contains("\(base)/nosuch/: nothing is at that address: check it (nothing is there (404))"),
            "\(missing.stderr)")
        let calendar = try add(work, base + "/home/", ["--book", base + "/cal/"])
        #expect(calendar.status == 76, "\(calendar)")
        #expect(calendar.stderr.contains("that address is not an address book"), "\(calendar.stderr)")
        #expect(calendar.stderr.hasSuffix("Nothing was saved.\n"), "\(calendar.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.path + "/store/settings.toml"))
    }

    @Test("a web page where the server should be is not a CardDAV server, its title escaped")
    func webPage() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("no-well-known", in: work)
        let result = try add(work, "http://127.0.0.1:\(server.port)/login/")
        #expect(result.status == 76, "\(result)")
        #expect(
            result.stderr
                == "contactbox: that address is not a CardDAV server (an address book server) (PROPFIND /login/: 200 "
                + "with an HTML page, not a CardDAV answer; its title: Sign in & \\u{1B}[2Jsync)\n", "\(result.stderr)")
    }
}

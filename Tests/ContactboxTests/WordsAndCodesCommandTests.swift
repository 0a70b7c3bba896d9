import Foundation
import Testing

/// What the commands say and the codes they exit with, tested by their exact words: unknown UIDs, the exit codes in
/// each command's help, held deletions, the sides of a sync's summary, and unreadable cards by their FN.
@Suite("words and codes of the commands", .timeLimit(.minutes(5)))
struct WordsAndCodesCommandTests {
    /// A configuration with the store in `work` and one folder remote, `usb`, at `work/usb`.
    func folderConfig(_ work: Workspace) throws -> String {
        try work.file(
            "contactbox.toml",
            """
            store = "\(work.db)"

            [[remote]]
            name = "usb"
            kind = "vdir"
            folder = "\(work.path)/usb"
            create_folder = true

            """)
    }

    @Test("delete of an unknown UID says so, exits 1 and records no run")
    func deleteUnknownUID() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann"))])
        let result = try contactbox(["delete", "--db", work.db, "nosuch"])
        #expect(result.status == 1)
        #expect(result.stderr == "contactbox: no contact with UID nosuch\n")
        #expect(result.stdout.isEmpty)
        let runs = try contactbox(["runs", "--db", work.db]).stdout
        #expect(runs.split(separator: "\n").count == 1 && runs.contains("import"), "\(runs)")
    }

    @Test("delete of a known and an unknown UID deletes the one, names the other, and exits 1")
    func deleteSomeUnknown() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann"))])
        let result = try contactbox(["delete", "--db", work.db, "nosuch", "ann"])
        #expect(result.status == 1)
        #expect(result.stdout == "deleted  Ann  ann\n")
        #expect(
            result.stderr
                == "contactbox: no contact with UID nosuch\nDeleted 1 contact (run 2; `contactbox undo 2` takes it back).\n"
        )
    }

    @Test("edit of an unknown UID says so; of a deleted one, says when it was deleted")
    func editUnknownUID() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann"))])
        let unknown = try contactbox(["edit", "--db", work.db, "nosuch"], environment: ["EDITOR": "true"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "contactbox: no contact with UID nosuch\n")

        #expect(try contactbox(["delete", "--db", work.db, "ann"]).status == 0)
        let deleted = try contactbox(["edit", "--db", work.db, "ann"], environment: ["EDITOR": "true"])
        #expect(deleted.status == 1)
        #expect(
            deleted.stderr.hasPrefix("contactbox: no contact with UID ann: it was deleted on 20"), "\(deleted.stderr)")
        #expect(deleted.stderr.hasSuffix(" (`contactbox restore ann` brings it back)\n"), "\(deleted.stderr)")
        let runs = try contactbox(["runs", "--db", work.db]).stdout
        #expect(runs.split(separator: "\n").count == 2, "import and delete only: \(runs)")
    }

    /// The exit-code table of Docs/commands.md, by command.
    static let codes: [(command: String, codes: [Int])] = [
        ("import", [0, 64, 65, 66, 74, 78]), ("export", [0, 64, 73, 74, 78]), ("list", [0, 1, 64, 74, 78]),
        ("show", [0, 1, 64, 74, 78]), ("check", [0, 1, 64, 74, 78]), ("edit", [0, 1, 64, 65, 66, 73, 74, 78]),
        ("delete", [0, 1, 64, 74, 78]), ("history", [0, 1, 64, 74, 78]), ("runs", [0, 64, 74, 78]),
        ("restore", [0, 1, 64, 74, 78]), ("undo", [0, 1, 64, 74, 78]), ("prune-history", [0, 64, 74, 78]),
        ("copy", [0, 1, 64, 74, 78]), ("recover", [0, 1, 64, 74, 75, 78]),
        ("check-config", [0, 1, 64, 78]), ("sync", [0, 1, 10, 64, 69, 74, 75, 76, 77, 78]),
        ("discover", [0, 1, 64, 69, 75, 76, 77, 78]), ("run", [0, 64, 71, 78]), ("pair", [0, 64, 73, 78]),
        ("remote", [0, 64, 69, 73, 75, 76, 77, 78]), ("token", [0, 1, 64, 73, 78]),
    ]

    @Test("every command's help names the exit codes Docs/commands.md gives it", arguments: codes)
    func helpNamesTheCodes(command: String, codes: [Int]) throws {
        let help = try contactbox([command, "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(separator: "\n").joined(separator: " ")
        let paragraph = try #require(text.firstRange(of: "Exit codes: ").map { text[$0.upperBound...] })
        let end = paragraph.firstIndex(of: ".").map { paragraph[..<$0] } ?? paragraph
        // "0 done; 1 ...; 64 bad usage": the number that starts each part.
        let named = end.split(separator: ";").compactMap { Int($0.split(separator: " ").first ?? "") }
        #expect(named == codes, "\(command): \(end)")
    }

    @Test("held deletions are one message naming sync --confirm-deletions and the button, with no log line")
    func deletionsHeld() throws {
        let work = try Workspace()
        let config = try folderConfig(work)
        let cards = (0..<8).map { card("g\($0)", "Guest \($0)") }.joined()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", cards)])
        #expect(try contactbox(["sync", "--config", config]).status == 0)
        for index in 0..<6 { try FileManager.default.removeItem(atPath: work.path + "/usb/g\(index).vcf") }

        let held = try contactbox(["sync", "--config", config])
        #expect(held.status == 10)
        #expect(held.stdout.hasPrefix("usb: deletions held: store: 0 downloaded, 0 updated, 0 deleted; "), "\(held)")
        #expect(
            held.stderr
                == "  this run would delete 6 of 8 contacts synced with usb (more than 30%); nothing was deleted. "
                + "If the deletions are wanted, run `contactbox sync --confirm-deletions`, or hold the box's button "
                + "for 3 seconds (until all LEDs light).\n")
        #expect(try contactbox(["list", "--db", work.db]).stdout.split(separator: "\n").count == 8)
    }

    @Test("a sync's summary says which side each update and deletion was made on")
    func summarySides() throws {
        let work = try Workspace()
        let config = try folderConfig(work)
        let cards = ["a", "b", "c", "d"].map { card($0, "Person \($0)") }.joined()
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", cards)])
        let first = try contactbox(["sync", "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout.hasPrefix(
                "usb: synced: store: 0 downloaded, 0 updated, 0 deleted; server: 4 uploaded, 0 updated, 0 deleted; "
                    + "0 conflicts, 0 errors ("), "\(first.stdout)")

        // On the folder: a changed, b deleted. On the box: c changed, d deleted.
        try card("a", "Person A Changed").write(toFile: work.path + "/usb/a.vcf", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: work.path + "/usb/b.vcf")
        let update = try work.file("update.vcf", card("c", "Person C Changed"))
        #expect(try contactbox(["import", "--update", "--db", work.db, update]).status == 0)
        #expect(try contactbox(["delete", "--db", work.db, "d"]).status == 0)

        let second = try contactbox(["sync", "--config", config])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stdout.hasPrefix(
                "usb: synced: store: 0 downloaded, 1 updated, 1 deleted; server: 0 uploaded, 1 updated, 1 deleted; "
                    + "0 conflicts, 0 errors ("), "\(second.stdout)")
    }

    @Test("an unreadable card lists and is found by the name on its FN line")
    func unreadableCardByFN() throws {
        let work = try Workspace()
        let config = try folderConfig(work)
        _ = try work.file(
            "usb/broken.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:broken-1\r\nFN:Half A Card\r\nTEL:+49 30 1234\r\n")
        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced)")
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Half A Card (unreadable)\tbroken-1\n")
        let found = try contactbox(["list", "--db", work.db, "--search", "half a"])
        #expect(found.status == 0 && found.stdout == "Half A Card (unreadable)\tbroken-1\n", "\(found)")
    }
}

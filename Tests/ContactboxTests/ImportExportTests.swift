import Foundation
import Testing

@Suite("contactbox import, export, list, show and check", .timeLimit(.minutes(10)))
struct ImportExportTests {
    @Test("contacts imported from a file come out of export with the same content")
    func importThenExportKeepsContent() throws {
        let work = try Workspace()
        let input = try work.file(
            "in.vcf",
            card(
                "ada", "Ada Lovelace", "N:Lovelace;Ada;;;", "EMAIL;TYPE=HOME:ada@example.org",
                "X-CUSTOM;X-P=\"a,b\":kept")
                + card("grace", "Grace Hopper", "TEL;TYPE=CELL:+1 555 0100", "NOTE:Line one\\nLine two\\, with comma"))
        let imported = try contactbox(["import", "--db", work.db, input])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("Imported 2"))

        let exported = try contactbox(["export", "--db", work.db, "--out", work.path + "/out.vcf"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let text = try work.read("out.vcf")
        #expect(text.contains("UID:ada\r\n"))
        #expect(text.contains("X-CUSTOM;X-P=\"a,b\":kept\r\n"))
        #expect(text.contains("NOTE:Line one\\nLine two\\, with comma\r\n"))

        // Round trip: the export imported into a second store merges nothing away and lists the same people.
        let second = work.path + "/second.sqlite"
        #expect(try contactbox(["import", "--db", second, work.path + "/out.vcf"]).status == 0)
        let first = try contactbox(["list", "--db", work.db]).stdout
        #expect(first == "Ada Lovelace\tada\nGrace Hopper\tgrace\n")
        #expect(try contactbox(["list", "--db", second]).stdout == first)
        let stdoutExport = try contactbox(["export", "--db", second])
        #expect(stdoutExport.stdout == text)
    }

    @Test("a malformed card is reported with file and line, skipped alone, and the exit code says so")
    func malformedCardIsSkippedAlone() throws {
        let work = try Workspace()
        let input = try work.file(
            "mixed.vcf",
            card("a", "Anna") + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bad\r\nnot a property line\r\nEND:VCARD\r\n"
                + card("b", "Bert"))
        let result = try contactbox(["import", "--db", work.db, input])
        #expect(result.status == 65)
        #expect(result.stderr.contains("mixed.vcf:9: skipped:"))
        #expect(result.stderr.contains("skipped 1"))
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Anna\ta\nBert\tb\n")
    }

    @Test("cards as real exporters write them import, each repair said once; a card with no name lists by its EMAIL")
    func lenientImportAndNamelessCards() throws {
        let work = try Workspace()
        let input = try work.file(
            "phone.vcf",
            "BEGIN:VCARD\r\r\nVERSION:3.0\r\r\nUID:esc\r\r\nFN:Jo \\\"JJ\\\" O\\'Neil\r\r\nNOTE:say \\\"hi\\\"\r\r\n"
                + "END:VCARD\r\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nUID:anon\r\nEMAIL:who@nowhere.example\r\nEND:VCARD\r\n")
        let result = try contactbox(["import", "--db", work.db, input])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "phone.vcf:1: repaired: read line ends written as CR CR LF or a lone CR; "
                    + "read non-standard escapes \\\" \\' as the escaped characters\n"))
        #expect(result.stderr.components(separatedBy: "repaired:").count == 2, "one line for the one repaired card")
        #expect(result.stderr.contains("Imported 2, repaired 1, skipped 0"))
        let listed = try contactbox(["list", "--db", work.db]).stdout
        #expect(listed == "Jo \"JJ\" O'Neil\tesc\nwho@nowhere.example\tanon\n")
        #expect(
            try contactbox(["list", "--db", work.db, "--search", "NOWHERE"]).stdout == "who@nowhere.example\tanon\n")
        let shown = try contactbox(["show", "--db", work.db, "anon"])
        #expect(shown.status == 0)
        #expect(shown.stdout == "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:anon\r\nEMAIL:who@nowhere.example\r\nEND:VCARD\r\n")
        let repaired = try contactbox(["show", "--db", work.db, "esc"]).stdout
        #expect(repaired.contains("\r\nFN:Jo \"JJ\" O'Neil\r\nNOTE:say \"hi\"\r\n"))
        #expect(try contactbox(["check", "--db", work.db]).status == 0)
    }

    @Test("a name with terminal control sequences is listed and shown escaped, never sent to the terminal raw")
    func controlCharactersEscaped() throws {
        let work = try Workspace()
        // ESC ] 0 ; ... BEL retitles a terminal; ESC [ 2 J clears it; U+009B is the one-byte CSI.
        let name = "Eve\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m"
        let input = try work.file(
            "evil.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:eve\r\nFN:\(name)\r\nEND:VCARD\r\n")
        #expect(try contactbox(["import", "--db", work.db, input]).status == 0)
        for output in [
            try contactbox(["list", "--db", work.db]).stdout, try contactbox(["show", "--db", work.db, "eve"]).stdout,
        ] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
            #expect(output.contains("Eve\\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{9B}31m"), "\(output)")
        }
        #expect(try contactbox(["show", "--db", work.db, "eve"]).stdout.hasSuffix("\r\nEND:VCARD\r\n"))
    }

    @Test("duplicates: an exact copy is merged, a different card with a taken UID is kept under a new UID")
    func duplicatesAreMergedOrKept() throws {
        let work = try Workspace()
        let input = try work.file(
            "dups.vcf",
            card("same", "Carla", "TEL:1") + card("other-uid", "Carla", "TEL:1") + card("same", "Dora", "TEL:2"))
        let result = try contactbox(["import", "--db", work.db, input])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("merged 1 exact duplicate"))
        #expect(result.stderr.contains("kept 1 under a fresh UID"))
        let lines = try contactbox(["list", "--db", work.db]).stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "Carla\tsame")
        #expect(lines.last?.hasPrefix("Dora\t") == true && lines.last != "Dora\tsame")
    }

    @Test("a vCard folder imports, and exports to one file per contact named after its UID")
    func foldersInAndOut() throws {
        let work = try Workspace()
        _ = try work.file("vdir/one.vcf", card("one", "One"))
        _ = try work.file("vdir/two.vcf", card("two/with slash", "Two"))
        _ = try work.file("vdir/notes.txt", "not a card")
        #expect(try contactbox(["import", "--db", work.db, work.path + "/vdir"]).status == 0)
        let exported = try contactbox(["export", "--db", work.db, "--out", work.path + "/export/"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: work.path + "/export").sorted()
        #expect(files.count == 2)
        #expect(files.contains("one.vcf"))
        #expect(files.contains { $0.hasPrefix("two_with_slash-") && $0.hasSuffix(".vcf") })
        #expect(try work.read("export/one.vcf") == card("one", "One"))
    }

    @Test("show prints one card; an unknown UID exits 1")
    func showOneContact() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("a.vcf", card("x1", "Xena"))])
        let shown = try contactbox(["show", "--db", work.db, "x1"])
        #expect(shown.status == 0)
        #expect(shown.stdout == card("x1", "Xena"))
        let missing = try contactbox(["show", "--db", work.db, "nobody"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no contact with UID nobody"))
    }

    @Test("list --search matches part of a name in any letter case")
    func listSearch() throws {
        let work = try Workspace()
        let input = try work.file("a.vcf", card("1", "Zoë Brown") + card("2", "Adam Browning") + card("3", "Eve"))
        _ = try contactbox(["import", "--db", work.db, input])
        #expect(
            try contactbox(["list", "--db", work.db, "--search", "BROWN"]).stdout == "Adam Browning\t2\nZoë Brown\t1\n")
    }

    @Test("a missing input file exits 66 and names the file")
    func missingInput() throws {
        let work = try Workspace()
        let result = try contactbox(["import", "--db", work.db, work.path + "/nope.vcf"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("nope.vcf"))
    }

    @Test("check passes on a healthy store; --version names the build")
    func checkAndVersion() throws {
        let work = try Workspace()
        _ = try contactbox(["import", "--db", work.db, try work.file("a.vcf", card("1", "Ann"))])
        let check = try contactbox(["check", "--db", work.db])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains("healthy, 1 contact"))
        let version = try contactbox(["--version"])
        #expect(version.stdout.hasPrefix("0.1.0 (build "))
        #expect(!version.stdout.contains("(build )"))
    }

    @Test("the store path comes from CONTACTBOX_DB when --db is not given")
    func storePathFromEnvironment() throws {
        let work = try Workspace()
        let input = try work.file("a.vcf", card("1", "Ann"))
        #expect(try contactbox(["import", input], environment: ["CONTACTBOX_DB": work.db]).status == 0)
        #expect(FileManager.default.fileExists(atPath: work.db))
    }
}

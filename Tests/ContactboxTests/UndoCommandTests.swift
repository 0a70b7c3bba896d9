import Foundation
import Testing

@Suite("contactbox history, runs, delete, edit, restore, undo and export --as-of", .timeLimit(.minutes(10)))
struct UndoCommandTests {
    /// A workspace with Ada and Grace imported (run 1).
    func importedTwo() throws -> Workspace {
        let work = try Workspace()
        let input = try work.file(
            "in.vcf", card("ada", "Ada Lovelace", "EMAIL:ada@example.org") + card("grace", "Grace Hopper"))
        let imported = try contactbox(["import", "--db", work.db, input])
        #expect(imported.status == 0, "\(imported.stderr)")
        return work
    }

    /// The history as JSON objects, newest first.
    func historyJSON(_ work: Workspace, _ arguments: [String] = []) throws -> [[String: Any]] {
        let result = try contactbox(["history", "--db", work.db, "--json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// `--as-of` for the moment just after history row `row` (its time, read back from the JSON).
    func moment(of row: [String: Any]) throws -> String {
        let time = try #require(row["time"] as? String)
        return time
    }

    @Test("delete makes a tombstone, history and runs say what did it, restore UID brings it back")
    func deleteHistoryRunsRestore() throws {
        let work = try importedTwo()
        let deleted = try contactbox(["delete", "--db", work.db, "grace", "nobody"])
        #expect(deleted.status == 1)
        #expect(deleted.stdout == "deleted  Grace Hopper  grace\n")
        #expect(deleted.stderr.contains("no contact with UID nobody"))
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Ada Lovelace\tada\n")

        let text = try contactbox(["history", "--db", work.db, "grace"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("current: Grace Hopper (deleted)  grace"))
        #expect(text.stdout.contains("deleted  delete on the command line (run 2)  deleted Grace Hopper"))
        #expect(text.stdout.contains("created  import (run 1)  created Grace Hopper"))

        let runs = try contactbox(["runs", "--db", work.db])
        #expect(runs.stdout.hasPrefix("run 2  "))
        #expect(runs.stdout.contains("delete  ok  store: 0 created, 0 updated, 1 deleted"))
        #expect(runs.stdout.contains("import  ok  store: 2 created, 0 updated, 0 deleted"))
        let runsJSON = try contactbox(["runs", "--db", work.db, "--json", "--limit", "1"])
        let run = try #require(try JSONSerialization.jsonObject(with: Data(runsJSON.stdout.utf8)) as? [String: Any])
        #expect(run["id"] as? Int == 2 && run["kind"] as? String == "delete")

        let restored = try contactbox(["restore", "--db", work.db, "grace"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout == "revived  Grace Hopper  grace\n")
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Ada Lovelace\tada\nGrace Hopper\tgrace\n")
        let notDeleted = try contactbox(["restore", "--db", work.db, "ada"])
        #expect(notDeleted.status == 1 && notDeleted.stderr.contains("contact ada is not deleted"))
        #expect(try contactbox(["history", "--db", work.db, "nobody"]).status == 1)
        let unknown = try contactbox(["restore", "--db", work.db, "nobody", "--as-of", "1h"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no contact and no history with UID nobody"))
    }

    @Test("edit opens $EDITOR on the card; a change is saved, no change writes nothing, another UID is refused")
    func edit() throws {
        let work = try importedTwo()
        let changing = try work.file(
            "change.sh", "#!/bin/sh\nsed -i 's/ada@example.org/ada@lovelace.example/' \"$1\"\n")
        let same = try work.file("same.sh", "#!/bin/sh\ntrue\n")
        let renaming = try work.file("uid.sh", "#!/bin/sh\nsed -i 's/^UID:ada/UID:other/' \"$1\"\n")
        let breaking = try work.file("break.sh", "#!/bin/sh\nprintf 'BEGIN:VCARD\\r\\nFN:x\\r\\n' > \"$1\"\n")
        // Run through sh, not executed: a script written a moment ago may still be open in another test's fork
        // (ETXTBSY).

        let unchanged = try contactbox(
            ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + same, "VISUAL": ""])
        #expect(unchanged.status == 0 && unchanged.stderr.contains("No change."), "\(unchanged.stderr)")
        let refused = try contactbox(
            ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + renaming])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("UID is other, not ada"))
        let broken = try contactbox(
            ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + breaking])
        #expect(broken.status == 65)
        #expect(try historyJSON(work, ["ada"]).count == 1)  // only its creation

        let saved = try contactbox(
            ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "VISUAL": "sh " + changing])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try contactbox(["show", "--db", work.db, "ada"]).stdout.contains("ada@lovelace.example"))
        let rows = try historyJSON(work, ["ada"])
        #expect(rows.first?["kind"] as? String == "updated")
        #expect(rows.first?["run_kind"] as? String == "edit")
        #expect(rows.first?["fields"] as? [String] == ["EMAIL"])
        let missing = try contactbox(
            ["edit", "--db", work.db, "nobody"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + same])
        #expect(missing.status == 1 && missing.stderr.contains("no contact with UID nobody"))
    }

    @Test("restore --as-of puts every contact as it was; --dry-run only lists; undo of the restore gives it back")
    func restoreAsOfAndUndo() throws {
        let work = try importedTwo()
        let moment = try #require(try historyJSON(work).first?["time"] as? String)
        #expect(try contactbox(["delete", "--db", work.db, "ada"]).status == 0)
        let newcomer = try work.file("new.vcf", card("new", "New Person"))
        #expect(try contactbox(["import", "--db", work.db, newcomer]).status == 0)
        let before = try contactbox(["export", "--db", work.db]).stdout

        let dry = try contactbox(["restore", "--db", work.db, "--as-of", moment, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "revived  Ada Lovelace  ada\ndeleted  New Person  new\n")
        #expect(try contactbox(["export", "--db", work.db]).stdout == before)

        let asOfExport = try contactbox(["export", "--db", work.db, "--as-of", moment])
        let done = try contactbox(["restore", "--db", work.db, "--as-of", moment])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stderr.contains("1 revived, 0 reverted, 1 deleted (run 4;"))
        #expect(try contactbox(["list", "--db", work.db]).stdout == "Ada Lovelace\tada\nGrace Hopper\tgrace\n")
        // A restore dates what it writes (a new REV): the same contacts, their REV lines aside.
        func lines(_ export: String) -> Set<Substring> {
            Set(export.split(separator: "\r\n").filter { !$0.hasPrefix("REV:") })
        }
        #expect(lines(asOfExport.stdout) == lines(try contactbox(["export", "--db", work.db]).stdout))

        let undone = try contactbox(["undo", "--db", work.db, "4"])
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(lines(try contactbox(["export", "--db", work.db]).stdout) == lines(before))
        let unknown = try contactbox(["undo", "--db", work.db, "99"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no run 99"))
    }

    @Test("restore UID --version N takes that version; a version of another contact or a bad time is refused")
    func restoreVersion() throws {
        let work = try importedTwo()
        let changing = try work.file("change.sh", "#!/bin/sh\nsed -i 's/^FN:.*/FN:Countess/' \"$1\"\n")
        #expect(
            try contactbox(
                ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + changing]
            ).status == 0)
        let version = try #require(try historyJSON(work, ["ada"]).first?["id"] as? Int)
        let wrong = try contactbox(["restore", "--db", work.db, "grace", "--version", "\(version)"])
        #expect(wrong.status == 1 && wrong.stderr.contains("contact grace has no version \(version)"))
        let restored = try contactbox(["restore", "--db", work.db, "ada", "--version", "\(version)"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout == "reverted  Ada Lovelace  ada\n")
        let badTime = try contactbox(["restore", "--db", work.db, "--as-of", "last tuesday"])
        #expect(badTime.status == 64 && badTime.stderr.contains("is no time"))
        let both = try contactbox(["restore", "--db", work.db, "ada", "--version", "1", "--as-of", "2h"])
        #expect(both.status == 64)
    }

    @Test("history --limit reads past a page of 100, newest first, and stops at the limit or the end")
    func historyLimitPages() throws {
        let work = try Workspace()
        let input = try work.file("many.vcf", (0..<150).map { card("u\($0)", "Person \($0)") }.joined())
        #expect(try contactbox(["import", "--db", work.db, input]).status == 0)
        let some = try contactbox(["history", "--db", work.db, "--limit", "120"]).stdout.split(separator: "\n")
        #expect(some.count == 120)
        #expect(some.first?.hasPrefix("#150  ") == true)
        #expect(some.last?.hasPrefix("#31  ") == true)
        #expect(
            try contactbox(["history", "--db", work.db, "--limit", "500"]).stdout.split(separator: "\n").count == 150)
        #expect(try contactbox(["history", "--db", work.db, "--limit", "0"]).status == 64)
    }

    @Test("history escapes a name's control characters in text and in JSON")
    func historyEscapes() throws {
        let work = try Workspace()
        let input = try work.file("in.vcf", card("evil", "Eve\u{1B}]0;owned\u{07}"))
        #expect(try contactbox(["import", "--db", work.db, input]).status == 0)
        let text = try contactbox(["history", "--db", work.db])
        #expect(!text.stdout.contains("\u{1B}"))
        #expect(text.stdout.contains("Eve\\u{1B}]0;owned\\u{7}"))
        let json = try contactbox(["history", "--db", work.db, "--json"])
        #expect(!json.stdout.contains("\u{1B}"))
        #expect(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) is [String: Any])
    }
}

@Suite("contactbox prune-history and the history in check", .timeLimit(.minutes(10)))
struct PruneHistoryCommandTests {
    @Test("check reports the history's rows and size; prune-history keeps what the settings say")
    func pruneAndCheck() throws {
        let work = try Workspace()
        let input = try work.file("in.vcf", card("ada", "Ada") + card("grace", "Grace"))
        #expect(try contactbox(["import", "--db", work.db, input]).status == 0)
        let changing = try work.file("change.sh", "#!/bin/sh\nsed -i \"s/^FN:.*/FN:Changed $$/\" \"$1\"\n")
        for _ in 0..<3 {
            let edit = try contactbox(
                ["edit", "--db", work.db, "ada"], environment: ["TMPDIR": work.path, "EDITOR": "sh " + changing])
            #expect(edit.status == 0, "\(edit.stderr)")
        }
        let check = try contactbox(["check", "--db", work.db])
        #expect(check.status == 0)
        #expect(check.stderr.contains("history: 5 rows"))
        let none = work.path + "/none.toml"
        let pruned = try contactbox(["prune-history", "--db", work.db, "--config", none, "--max-versions", "2"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(pruned.stderr.contains("Removed 2 history rows; 3 kept"))
        let bad = try contactbox(["prune-history", "--db", work.db, "--config", none, "--max-age", "soon"])
        #expect(bad.status == 64)
    }

    @Test("--as-of a time before pruned history warns on stderr that the result may not be that state; exit 0")
    func asOfBeforePrunedHistoryWarns() throws {
        let work = try Workspace()
        #expect(try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ada", "Ada"))]).status == 0)
        for name in ["Ada Two", "Ada Three"] {
            let update = try contactbox([
                "import", "--db", work.db, "--update", try work.file("in.vcf", card("ada", name)),
            ])
            #expect(update.status == 0, "\(update.stderr)")
        }
        let dayAgo = try contactbox(["export", "--db", work.db, "--as-of", "1d"])
        #expect(dayAgo.status == 0 && !dayAgo.stderr.contains("warning"), "\(dayAgo.stderr)")

        let none = work.path + "/none.toml"
        let pruned = try contactbox(["prune-history", "--db", work.db, "--config", none, "--max-versions", "1"])
        #expect(pruned.stderr.contains("Removed 2 history rows"), "\(pruned.stderr)")
        for command in [["export"], ["restore", "--dry-run"], ["restore", "ada", "--dry-run"]] {
            let result = try contactbox(command + ["--db", work.db, "--as-of", "1d"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let warning = result.stderr.split(separator: "\n").filter { $0.hasPrefix("contactbox: warning: ") }
            #expect(warning.count == 1, "\(command): \(result.stderr)")
            #expect(warning.first?.contains("has been pruned") == true)
            #expect(warning.first?.contains("may not be the state at") == true)
        }
        let later = try contactbox(["export", "--db", work.db, "--as-of", "2099-01-01T00:00Z"])
        #expect(later.status == 0 && !later.stderr.contains("warning"), "\(later.stderr)")
        #expect(later.stdout.contains("FN:Ada Three"))
    }
}

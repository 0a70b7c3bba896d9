import Foundation
import TestSupport
import Testing

/// `check-config` and `sync` with the settings file the status page writes next to the store: a box with no
/// address book yet, the two files listed with where each setting comes from, paused remotes.
@Suite("check-config and sync with the settings file", .timeLimit(.minutes(5)))
struct SettingsCommandTests {
    /// The administrator's file with the store in the workspace, and `text` after it.
    func administrator(_ work: Workspace, _ text: String = "") throws -> String {
        try work.file("contactbox.toml", "store = \"\(work.db)\"\n" + text)
    }

    /// A folder remote at `work/NAME`, created at the first sync.
    func folder(_ work: Workspace, _ name: String, paused: Bool = false) -> String {
        "\n[[remote]]\nname = \"\(name)\"\nkind = \"vdir\"\nfolder = \"\(work.path)/\(name)\"\ncreate_folder = true\n"
            + (paused ? "paused = true\n" : "")
    }

    @Test("a configuration without any remote is valid: check-config says how to add one, and exits 0")
    func noRemote() throws {
        let work = try Workspace()
        let config = try administrator(work)
        let result = try contactbox(["check-config", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("configuration OK\n"), "\(result.stdout)")
        #expect(
            result.stderr
                == "No address book is set up yet: add one on the status page, or with a [[remote]] block in "
                + "\(config).\n")
        #expect(result.stdout.contains("  settings: \(work.path)/store/settings.toml (none yet)"), "\(result.stdout)")
    }

    @Test("sync with no address book set up exits 78 and says how to add one")
    func syncWithoutRemote() throws {
        let work = try Workspace()
        let result = try contactbox(["sync", "--config", try administrator(work)])
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "contactbox: no address book is set up yet: add one on the status page, or with a [[remote]] "
                + "block in \(work.path)/contactbox.toml\n")
    }

    @Test("check-config lists both files, each remote and setting with its file and line, /etc's as fixed")
    func bothFilesListed() throws {
        let work = try Workspace()
        let config = try administrator(work, "\n[sync]\ninterval = \"1h\"\n" + folder(work, "nas"))
        let settings = try work.file(
            "store/settings.toml", "[box]\nname = \"kitchen\"\n\n[sync]\ninterval = \"5m\"\n" + folder(work, "family"))
        let result = try contactbox(["check-config", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.hasPrefix("\(config):\n"), "\(out)")
        #expect(out.contains("  settings: \(settings)\n"), "\(out)")
        #expect(out.contains("  daemon: syncs every 1h (\(config):4, fixed by the administrator) and"), "\(out)")
        #expect(out.contains("  box name: kitchen (\(settings):2)\n"), "\(out)")
        #expect(out.contains("  remote \"nas\" (\(config):6, fixed by the administrator):\n"), "\(out)")
        #expect(out.contains("  remote \"family\" (\(settings):7):\n"), "\(out)")
    }

    @Test("a broken settings file is listed with its line and exits 1; /etc alone is used, and sync still runs")
    func brokenSettings() throws {
        let work = try Workspace()
        let config = try administrator(work, folder(work, "nas"))
        let settings = try work.file("store/settings.toml", "[sync]\ninterval = \"soon\"\n" + folder(work, "family"))
        let checked = try contactbox(["check-config", "--config", config])
        #expect(checked.status == 1, "\(checked)")
        #expect(checked.stderr.contains("contactbox: \(settings):2: [sync] interval: \"soon\" is not a duration"))
        #expect(checked.stderr.contains("1 problem in \(settings): the box starts without what it spoils."))
        #expect(checked.stdout.contains("remote \"nas\""))
        #expect(!checked.stdout.contains("remote \"family\""))
        // The daemon's start takes it too: run's check is check-config's, whose /etc has no problem.
        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("contactbox: warning: \(settings):2: [sync] interval"), "\(synced.stderr)")
        #expect(synced.stdout.contains("nas: synced"), "\(synced.stdout)")
        #expect(!FileManager.default.fileExists(atPath: work.path + "/family"))
    }

    @Test("sync syncs the settings file's remotes, and neither file's paused ones")
    func pausedAndSettingsRemotes() throws {
        let work = try Workspace()
        let config = try administrator(work, folder(work, "nas", paused: true))
        _ = try work.file("store/settings.toml", folder(work, "family") + folder(work, "attic", paused: true))
        _ = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann"))])
        let synced = try contactbox(["sync", "--config", config])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("family: synced"), "\(synced.stdout)")
        #expect(FileManager.default.fileExists(atPath: work.path + "/family/ann.vcf"))
        #expect(!FileManager.default.fileExists(atPath: work.path + "/nas"))
        #expect(!FileManager.default.fileExists(atPath: work.path + "/attic"))
        let checked = try contactbox(["check-config", "--config", config])
        #expect(checked.stdout.contains("    paused: kept, not synced"), "\(checked.stdout)")
        let one = try contactbox(["sync", "--config", config, "--remote", "attic"])
        #expect(one.status == 0)
        #expect(one.stderr.contains("remote attic is paused: nothing to sync"), "\(one.stderr)")
    }
}

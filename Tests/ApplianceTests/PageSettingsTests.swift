import Config
import Glibc
import StatusServer
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import Appliance

/// The page's settings on real files: /etc's configuration with a remote of the administrator's, and the settings
/// file beside the store with one of the household's.
@Suite("The settings the status page changes")
struct PageSettingsTests {
    let directory: TemporaryDirectory
    let configPath: String
    let saves = SaveCount()

    init() throws {
        directory = try TemporaryDirectory()
        configPath = directory.file("contactbox.toml")
        mkdir(directory.file("admin"), 0o700)
        mkdir(directory.file("kitchen"), 0o700)
        let etc = """
            store = "\(directory.file("contacts.sqlite"))"
            [[remote]]
            name = "admin-nas"
            kind = "vdir"
            folder = "\(directory.file("admin"))"

            """
        try SmallFile.replace(configPath, with: Array(etc.utf8), mode: 0o644)
        let settings = HouseholdConfiguration(
            remotes: [
                RemoteSettings(name: "kitchen", kind: .vdir(folder: directory.file("kitchen"), createFolder: false))
            ])
        try SettingsFile(path: directory.file("settings.toml"), secretsDirectory: directory.file("secrets")).save(
            settings, expecting: .absent)
    }

    var page: PageSettings {
        let saves = saves
        return PageSettings(configPath: configPath) { saves.count.withLock { $0 += 1 } }
    }

    func view() throws -> SettingsView {
        guard case .view(let view) = page.answer(.read) else { throw ApplianceError("no view") }
        return view
    }

    @Test("both files' remotes, /etc's fixed; a change with the version read is saved and asks for a reload")
    func change() throws {
        let before = try view()
        #expect(before.remotes.map(\.name) == ["admin-nas", "kitchen"])
        #expect(before.remotes.map(\.fixed) == [true, false])
        #expect(before.remotes[1].origin.contains("settings.toml:"))
        #expect(before.interval == "15m")
        guard
            case .view(let after) = page.answer(
                .change(["version": before.version, "action": "interval", "value": "30m"]))
        else {
            Issue.record("the interval was not saved")
            return
        }
        #expect(after.interval == "30m")
        #expect(after.version != before.version)
        #expect(saves.count.withLock { $0 } == 1)
        // What the daemon reads at its reload: both files merged.
        #expect(Configuration.checked(path: configPath).configuration?.sync.interval == .seconds(1800))
        let paused = page.answer(.change(["version": after.version, "action": "pause", "remote": "kitchen"]))
        guard case .view(let view) = paused else {
            Issue.record("not paused: \(paused)")
            return
        }
        #expect(view.remotes[1].paused)
        #expect(Configuration.checked(path: configPath).configuration?.syncedRemotes.map(\.name) == ["admin-nas"])
    }

    @Test("refused: a stale version (412), what /etc sets (409), a bad value or action (400); nothing saved")
    func refused() throws {
        let version = try view().version
        let stale = page.answer(.change(["version": "0000000000000001", "action": "interval", "value": "30m"]))
        guard case .refused(412, let message) = stale else {
            Issue.record("a stale version was taken: \(stale)")
            return
        }
        #expect(message.contains("changed meanwhile"))
        #expect(
            page.answer(.change(["version": version, "action": "pause", "remote": "admin-nas"]))
                == .refused(
                    status: 409,
                    message: "The address book admin-nas is set by the administrator (\(configPath)): change it there.")
        )
        guard case .refused(400, _) = page.answer(.change(["version": version, "action": "interval", "value": "soon"]))
        else {
            Issue.record("a bad interval was taken")
            return
        }
        guard
            case .refused(400, _) = page.answer(
                .change(["version": version, "action": "box-name", "value": "my box!"]))
        else {
            Issue.record("a bad box name was taken")
            return
        }
        guard case .refused(400, _) = page.answer(.change(["version": version, "action": "delete-everything"])) else {
            Issue.record("an unknown action was taken")
            return
        }
        #expect(saves.count.withLock { $0 } == 0)
        #expect(try view().version == version)
    }
}

/// How many times a save asked for a reload.
final class SaveCount: Sendable {
    let count = Mutex(0)
}

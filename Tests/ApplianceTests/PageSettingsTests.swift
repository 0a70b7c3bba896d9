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
        return PageSettings(configPath: configPath) { saves.saved($0) }
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

    /// Sends one change with the version the page has now, and returns the view after it.
    func change(_ fields: [String: String]) throws -> SettingsView {
        let answer = page.answer(.change(fields.merging(["version": try view().version]) { $1 }))
        guard case .view(let view) = answer else { throw ApplianceError("refused: \(answer)") }
        return view
    }

    @Test("renamed: its password file follows the name, the store is told; a taken or bad name is refused")
    func rename() throws {
        let file = SettingsFile(path: directory.file("settings.toml"), secretsDirectory: directory.file("secrets"))
        var settings = try file.load().settings
        let password = try file.savePassword(Array("app pass".utf8), forRemote: "icloud")
        settings.remotes.append(
            RemoteSettings(
                name: "icloud",
                kind: .carddav(
                    url: "https://contacts.example/ann/", username: "ann", password: password, authScheme: .basic,
                    caFile: nil, caPath: nil, concurrency: 4)))
        try file.save(settings, expecting: try file.version())

        let view = try change(["action": "rename", "remote": "icloud", "value": "family"])
        #expect(view.remotes.map(\.name) == ["admin-nas", "kitchen", "family"])
        #expect(saves.changes.withLock { $0 } == [.renamed(from: "icloud", to: "family")])
        let renamed = try #require(try file.load().settings.remotes.last)
        #expect(renamed.passwordFile == file.passwordPath(forRemote: "family"))
        #expect(try SecretSource.file(file.passwordPath(forRemote: "family")).read() == "app pass")
        #expect(access(file.passwordPath(forRemote: "icloud"), F_OK) != 0, "the old password file is gone")
        // What the daemon reads at its reload.
        #expect(Configuration.checked(path: configPath).configuration?.remotes.map(\.name).last == "family")

        for (name, status) in [("kitchen", 409), ("admin-nas", 409), ("my book", 400), ("family", 400)] {
            let refused = page.answer(
                .change(["version": try self.view().version, "action": "rename", "remote": "family", "value": name]))
            guard case .refused(status, _) = refused else {
                Issue.record("\(name): \(refused)")
                continue
            }
        }
        let admin = page.answer(
            .change(["version": try self.view().version, "action": "rename", "remote": "admin-nas", "value": "x"]))
        guard case .refused(409, _) = admin else {
            Issue.record("the administrator's remote was renamed: \(admin)")
            return
        }
        #expect(saves.count.withLock { $0 } == 1)
    }

    @Test("removed once asked: out of the settings file, the store told to forget its sync state")
    func remove() throws {
        let view = try change(["action": "remove", "remote": "kitchen"])
        #expect(view.remotes.map(\.name) == ["admin-nas"])
        #expect(saves.changes.withLock { $0 } == [.removed("kitchen")])
        #expect(Configuration.checked(path: configPath).configuration?.remotes.map(\.name) == ["admin-nas"])
        let admin = page.answer(
            .change(["version": try self.view().version, "action": "remove", "remote": "admin-nas"]))
        guard case .refused(409, _) = admin else {
            Issue.record("the administrator's remote was removed: \(admin)")
            return
        }
    }

    @Test("the conflict policy; the page's password set (a file only the box reads), then removed with its file")
    func conflictAndPagePassword() throws {
        #expect(
            try change(["action": "conflict", "remote": "kitchen", "value": "local"]).remotes[1].conflict == "local")
        #expect(Configuration.checked(path: configPath).configuration?.remotes[1].conflictPolicy == .local)
        guard
            case .refused(400, _) = page.answer(
                .change(["version": try view().version, "action": "conflict", "remote": "kitchen", "value": "mine"]))
        else {
            Issue.record("a bad conflict policy was taken")
            return
        }
        #expect(try view().pagePassword == false)
        let set = try change(["action": "page-password", "value": "kitchen door"])
        #expect(set.pagePassword)
        let path = SettingsFile.statusPasswordPath(secretsDirectory: directory.file("secrets"))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try Configuration.checked(path: configPath).configuration?.status.password?.read() == "kitchen door")
        let text = String(decoding: try SmallFile.read(directory.file("settings.toml"), limit: 65_536), as: UTF8.self)
        #expect(!text.contains("kitchen door"))
        guard
            case .refused(400, _) = page.answer(
                .change(["version": try view().version, "action": "page-password", "value": "two\nlines"]))
        else {
            Issue.record("a password with a line break was taken")
            return
        }
        #expect(try change(["action": "page-password", "value": ""]).pagePassword == false)
        #expect(access(path, F_OK) != 0, "the password file is gone with the setting")
        #expect(saves.changes.withLock { $0 }.isEmpty)
    }
}

/// The saves the page asked the daemon to reload for, and what each did to remotes.
final class SaveCount: Sendable {
    let count = Mutex(0)
    let changes = Mutex<[RemoteChange]>([])

    func saved(_ changes: [RemoteChange]) {
        count.withLock { $0 += 1 }
        self.changes.withLock { $0 += changes }
    }
}

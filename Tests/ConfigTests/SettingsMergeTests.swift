import Glibc
import TestSupport
import Testing

@testable import Config

/// The settings file merged under the administrator's: `Configuration.checked`, which the daemon's start, its
/// reload and `check-config` run. `.timeLimit` guards against a reader that would wait on a FIFO.
@Suite("The settings file merged into the configuration", .timeLimit(.minutes(5)))
struct SettingsMergeTests {
    /// A box in a fresh folder: the administrator's file (its store in the folder, so the settings file is
    /// `settings.toml` there) and, when given, the settings file.
    struct Box {
        let directory: TemporaryDirectory
        var configPath: String { directory.file("contactbox.toml") }
        var settingsPath: String { directory.file("settings.toml") }
        var secrets: String { directory.file("secrets") }

        init(administrator: String, settings: String? = nil) throws {
            directory = try TemporaryDirectory()
            makeFile(configPath, "store = \"\(directory.file("contacts.sqlite"))\"\n" + administrator, mode: 0o644)
            if let settings { makeFile(settingsPath, settings) }
        }

        func check(boardsDirectory: String? = nil) -> ConfigurationCheck {
            Configuration.checked(path: configPath, boardsDirectory: boardsDirectory)
        }
    }

    static let adminRemote = """

        [[remote]]
        name = "nas"
        kind = "vdir"
        folder = "/mnt/nas/contacts"
        """

    func vdir(_ name: String, paused: Bool = false) -> String {
        "\n[[remote]]\nname = \"\(name)\"\nkind = \"vdir\"\nfolder = \"/srv/\(name)\"\n"
            + (paused ? "paused = true\n" : "")
    }

    @Test("The settings file lives next to the store, its passwords in secrets/")
    func paths() throws {
        let box = try Box(administrator: "")
        let configuration = try #require(box.check().configuration)
        #expect(configuration.settingsPath == box.settingsPath)
        #expect(configuration.secretsDirectory == box.secrets)
        #expect(Configuration(remotes: []).settingsPath == "/var/lib/contactbox/settings.toml")
    }

    @Test("Without a settings file the box runs on /etc alone, and nothing is said about it")
    func noSettingsFile() throws {
        let box = try Box(administrator: Self.adminRemote)
        let check = box.check()
        #expect(check.errors.isEmpty && check.settingsProblems.isEmpty, "\(check.errors) \(check.settingsProblems)")
        #expect(check.configuration?.remotes.map(\.name) == ["nas"])
        #expect(check.household == nil)
    }

    @Test("The settings file's remotes, interval and name are added; their origin is the settings file")
    func merged() throws {
        let settings = "[box]\nname = \"kitchen-box\"\n\n[sync]\ninterval = \"5m\"\n" + vdir("family")
        let box = try Box(administrator: Self.adminRemote, settings: settings)
        let check = box.check()
        #expect(check.settingsProblems.isEmpty, "\(check.settingsProblems)")
        let configuration = try #require(check.configuration)
        #expect(configuration.remotes.map(\.name) == ["nas", "family"])
        #expect(configuration.sync.interval == .seconds(300))
        #expect(configuration.box.name == "kitchen-box")
        #expect(
            check.origin(of: .remote("family")) == SettingOrigin(source: .settings, file: box.settingsPath, line: 7))
        #expect(check.origin(of: .syncInterval) == SettingOrigin(source: .settings, file: box.settingsPath, line: 5))
        #expect(check.origin(of: .boxName) == SettingOrigin(source: .settings, file: box.settingsPath, line: 2))
        #expect(!check.origin(of: .remote("family")).isFixed)
        #expect(
            check.origin(of: .remote("nas")) == SettingOrigin(source: .administrator, file: box.configPath, line: 3))
        #expect(check.origin(of: .remote("nas")).isFixed)
        #expect(check.origin(of: .statusPassword) == SettingOrigin(source: .builtIn))
        // The daemon's start and reload take the same merged configuration.
        #expect(Configuration.check(path: box.configPath).configuration == configuration)
    }

    @Test("Where both files set a value, /etc's is used and marked fixed by the administrator")
    func administratorWins() throws {
        let administrator = "[box]\nname = \"office\"\n\n[sync]\ninterval = \"1h\"\n"
        let settings = "[box]\nname = \"kitchen\"\n\n[sync]\ninterval = \"5m\"\n"
        let box = try Box(administrator: administrator, settings: settings)
        let check = box.check()
        let configuration = try #require(check.configuration)
        #expect(configuration.sync.interval == .seconds(3600))
        #expect(configuration.box.name == "office")
        let interval = check.origin(of: .syncInterval)
        #expect(interval == SettingOrigin(source: .administrator, file: box.configPath, line: 6))
        #expect(interval.isFixed)
        #expect(interval.description == "\(box.configPath):6, fixed by the administrator")
        #expect(check.origin(of: .boxName).isFixed)
        // What the settings file says is still there, for the page to show.
        #expect(check.household?.syncInterval == .seconds(300))
        #expect(check.settingsProblems.isEmpty)
    }

    @Test("A remote name /etc uses already is refused in the settings file, on its line; the others stay")
    func duplicateName() throws {
        let box = try Box(administrator: Self.adminRemote, settings: vdir("family") + vdir("nas"))
        let check = box.check()
        let configuration = try #require(check.configuration)
        #expect(configuration.remotes.map(\.name) == ["nas", "family"])
        #expect(configuration.remotes.first?.kind == .vdir(folder: "/mnt/nas/contacts", createFolder: false))
        #expect(
            check.settingsProblems.map(\.description) == [
                "\(box.settingsPath):7: remote \"nas\": the administrator's file has a remote of this name "
                    + "(\(box.configPath):3, fixed by the administrator); each needs its own, and this one is left out"
            ])
    }

    @Test("Both files together hold at most the limit of remotes; the settings file's beyond it are left out")
    func limit() throws {
        let limit = Configuration.remoteLimit
        let administrator = (0..<(limit - 1)).map { vdir("admin\($0)") }.joined()
        let box = try Box(administrator: administrator, settings: vdir("one") + vdir("two"))
        let check = box.check()
        let configuration = try #require(check.configuration)
        #expect(configuration.remotes.count == limit)
        #expect(configuration.remotes.last?.name == "one")
        #expect(check.settingsProblems.count == 1)
        #expect(check.settingsProblems.first?.description.contains("remote \"two\": left out") == true)
        #expect(check.settingsProblems.first?.line == 7)
    }

    @Test(
        "A broken settings file leaves the box on /etc's settings alone, and says why, with file and line",
        arguments: [
            ("[sync]\ninterval = \"5m\n", 2, "no closing quote"),
            ("[sync]\ninterval = \"soon\"\n", 2, "is not a duration"),
            ("[box]\nname = \"-kitchen\"\n", 2, "must not start or end with '-'"),
            ("store = \"/tmp/other.sqlite\"\n", 1, "can be set only in the administrator's file"),
            ("[sync]\nfull_check = \"1h\"\n", 2, "can be set only in the administrator's file"),
        ] as [(String, Int, String)])
    func brokenSettings(text: String, line: Int, message: String) throws {
        let box = try Box(administrator: Self.adminRemote, settings: text + vdir("family"))
        let check = box.check()
        let configuration = try #require(check.configuration, "\(check.errors)")
        #expect(configuration.remotes.map(\.name) == ["nas"])
        #expect(configuration.sync.interval == SyncSettings().interval)
        #expect(configuration.storePath == box.directory.file("contacts.sqlite"))
        let problem = try #require(check.settingsProblems.first)
        #expect(problem.file == box.settingsPath)
        #expect(problem.line == line)
        #expect(problem.message.contains(message), "\(problem)")
        #expect(check.household == nil)
        // The daemon's entry point starts all the same.
        #expect(Configuration.check(path: box.configPath).errors.isEmpty)
    }

    @Test("An unreadable settings file, or a FIFO in its place, leaves the box on /etc alone")
    func unreadableOrFifo() throws {
        let fifo = try Box(administrator: Self.adminRemote)
        #expect(mkfifo(fifo.settingsPath, 0o600) == 0)
        let fromFifo = fifo.check()
        #expect(fromFifo.configuration?.remotes.map(\.name) == ["nas"])
        #expect(
            fromFifo.settingsProblems.map(\.description) == [
                "\(fifo.settingsPath): is a FIFO (named pipe), not a regular file"
            ])

        let folder = try Box(administrator: Self.adminRemote)
        #expect(mkdir(folder.settingsPath, 0o700) == 0)
        #expect(folder.check().settingsProblems.first?.message == "is a folder, not a regular file")

        // Unreadable even by root: a link to itself.
        let loop = try Box(administrator: Self.adminRemote)
        #expect(symlink(loop.settingsPath, loop.settingsPath) == 0)
        let fromLoop = loop.check()
        #expect(fromLoop.configuration?.remotes.map(\.name) == ["nas"])
        #expect(
            fromLoop.settingsProblems.first?.message.hasPrefix("cannot read: ") == true, "\(fromLoop.settingsProblems)")

        let huge = try Box(administrator: Self.adminRemote, settings: String(repeating: "#", count: 2 << 20))
        #expect(huge.check().settingsProblems.first?.message == "is larger than 1048576 bytes")

        let notUTF8 = try Box(administrator: Self.adminRemote)
        var bytes = Array("[box]\nname = \"caf".utf8) + [0xFF, 0x22, 0x0A]
        let fd = open(notUTF8.settingsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let broken = notUTF8.check()
        #expect(broken.configuration?.remotes.map(\.name) == ["nas"])
        #expect(broken.settingsProblems.first?.line == 2, "\(broken.settingsProblems)")
    }

    @Test("Problems in /etc keep their behaviour: no configuration, and the settings file does not matter")
    func administratorProblems() throws {
        let box = try Box(administrator: "[sync]\ninterval = \"soon\"\n", settings: vdir("family"))
        let check = box.check()
        #expect(check.configuration == nil)
        #expect(check.errors.map(\.line) == [3])
        #expect(Configuration.check(path: box.configPath).configuration == nil)
    }

    @Test("A paused remote is read from either file, kept, and left out of the remotes a pass syncs")
    func paused() throws {
        let administrator = Self.adminRemote + "\npaused = true\n"
        let box = try Box(administrator: administrator, settings: vdir("family", paused: true) + vdir("work"))
        let configuration = try #require(box.check().configuration)
        #expect(configuration.remotes.map { "\($0.name) \($0.paused)" } == ["nas true", "family true", "work false"])
        #expect(configuration.syncedRemotes.map(\.name) == ["work"])
        #expect(
            problems(validText.replacing("create_folder = false", with: "paused = \"yes\"")) == [
                "\(configPath):21: remote \"nas\": paused must be true or false, without quotes (found \"yes\")"
            ])
    }

    @Test("A settings remote's password file must be in the secrets folder; a credential is the administrator's")
    func passwordsInSecrets() throws {
        let remote = { (key: String) in
            "[[remote]]\nname = \"icloud\"\nkind = \"carddav\"\nurl = \"https://contacts.icloud.com/\"\n"
                + "username = \"me\"\n" + key + "\n"
        }
        let box = try Box(administrator: "", settings: remote("password_file = \"/etc/shadow\""))
        let outside = box.check()
        #expect(outside.configuration?.remotes.isEmpty == true)
        #expect(outside.settingsProblems.first?.line == 6)
        #expect(outside.settingsProblems.first?.message.contains("must be a file in \(box.secrets)") == true)

        makeFile(box.settingsPath, remote("password_file = \"\(box.secrets)/../contacts.sqlite\""))
        #expect(box.check().settingsProblems.first?.key == "password_file")

        makeFile(box.settingsPath, remote("password_credential = \"icloud\""))
        #expect(box.check().settingsProblems.first?.message.contains("administrator's file") == true)

        makeFile(box.settingsPath, remote("password_file = \"\(box.secrets)/icloud.password\""))
        let inside = box.check()
        #expect(inside.settingsProblems.isEmpty, "\(inside.settingsProblems)")
        #expect(inside.configuration?.remotes.map(\.name) == ["icloud"])
    }

    @Test("A settings remote whose password file others may read is left out alone, never quoting the password")
    func badPasswordFile() throws {
        let box = try Box(administrator: "")
        #expect(mkdir(box.secrets, 0o700) == 0)
        makeFile(box.secrets + "/icloud.password", "Sw0rdfish\n", mode: 0o644)
        let settings =
            "[[remote]]\nname = \"icloud\"\nkind = \"carddav\"\nurl = \"https://contacts.icloud.com/\"\n"
            + "username = \"me\"\npassword_file = \"\(box.secrets)/icloud.password\"\n" + vdir("family")
        makeFile(box.settingsPath, settings)
        let check = box.check()
        #expect(check.configuration?.remotes.map(\.name) == ["family"])
        let problem = try #require(check.settingsProblems.first)
        #expect(problem.line == 1)
        #expect(problem.description.contains("chmod 600"), "\(problem)")
        #expect(!problem.description.contains("Sw0rdfish"))
    }

    @Test("A broken settings file does not open a status page it guarded with a password")
    func failClosed() throws {
        let box = try Box(administrator: "")
        #expect(mkdir(box.secrets, 0o700) == 0)
        let file = SettingsFile.statusPasswordPath(secretsDirectory: box.secrets)
        makeFile(file, "page-password\n")
        makeFile(box.settingsPath, "[status]\npassword_file = \"\(file)\"\n")
        #expect(box.check().configuration?.status.password == .file(file))
        #expect(box.check().origin(of: .statusPassword).source == .settings)
        makeFile(box.settingsPath, "[status]\npassword_file = \"\(file)\n")
        let broken = box.check()
        #expect(!broken.settingsProblems.isEmpty)
        #expect(broken.configuration?.status.password == .file(file))
    }
}

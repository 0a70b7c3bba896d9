import Glibc
import SystemSupport
import TestSupport
import Testing

@testable import Config

/// `SettingsFile`: what the status page and the command line save, atomically and with a version.
@Suite("Saving the settings file")
struct SettingsFileTests {
    struct Box {
        let directory: TemporaryDirectory
        var file: SettingsFile

        init() throws {
            directory = try TemporaryDirectory()
            file = SettingsFile(path: directory.file("settings.toml"), secretsDirectory: directory.file("secrets"))
        }
    }

    func family(_ box: Box) -> HouseholdConfiguration {
        HouseholdConfiguration(
            remotes: [
                RemoteSettings(
                    name: "icloud",
                    kind: .carddav(
                        url: "https://contacts.icloud.com/", username: "some\"one\\@icloud.com",
                        password: .file(box.file.passwordPath(forRemote: "icloud")), authScheme: .digest,
                        caFile: "/etc/ssl/my ca.pem", caPath: nil, concurrency: 2),
                    conflictPolicy: .remote, paused: true),
                RemoteSettings(name: "nas", kind: .vdir(folder: "/mnt/nas/Ádresses\t#1", createFolder: true)),
                RemoteSettings(
                    name: "radicale",
                    kind: .carddav(
                        url: "http://192.168.1.2:5232/alice/", username: "alice\u{7F}\u{1B}",
                        password: .file(box.file.passwordPath(forRemote: "radicale")), authScheme: .basic,
                        caFile: nil, caPath: "/etc/ssl/certs", concurrency: 4)),
            ],
            syncInterval: .seconds(5400),
            statusPassword: .file(SettingsFile.statusPasswordPath(secretsDirectory: box.file.secretsDirectory)),
            boxName: "kitchen-2")
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o7777
    }

    @Test("No file yet: empty settings, the absent version")
    func noFile() throws {
        let box = try Box()
        let loaded = try box.file.load()
        #expect(loaded.settings == HouseholdConfiguration())
        #expect(loaded.version == .absent)
        #expect(loaded.version.description == "none")
    }

    @Test("Saved settings read back equal through the configuration's own parser, strings escaped")
    func roundTrip() throws {
        let box = try Box()
        let settings = family(box)
        let version = try box.file.save(settings, expecting: .absent)
        let loaded = try box.file.load()
        #expect(loaded.settings == settings)
        #expect(loaded.version == version)
        #expect(SettingsFile.Version(version.description) == version)
        let text = try #require(readText(box.file.path))
        #expect(text.contains(#"username = "some\"one\\@icloud.com""#), "\(text)")
        #expect(text.contains(#"folder = "/mnt/nas/Ádresses\t#1""#), "\(text)")
        #expect(text.contains(#"username = "alice\u007F\u001B""#), "\(text)")
        #expect(mode(box.file.path) == 0o600)
        // And as the daemon reads it, merged.
        let parsed = HouseholdConfiguration.validate(
            text: text, path: box.file.path, secretsDirectory: box.file.secretsDirectory)
        #expect(parsed.errors.isEmpty)
        #expect(parsed.household == settings)
        // Empty again.
        try box.file.save(HouseholdConfiguration(), expecting: version)
        #expect(try box.file.load().settings == HouseholdConfiguration())
    }

    @Test(
        "Any text a setting may hold is written so that the real parser reads it back the same",
        arguments: [
            "\"quoted\" and \\back\\slashes\\", "tab\tnew\nline\r\u{0}nul\u{1B}[31m\u{7F}\u{85}\u{9F}",
            "\u{2028}\u{202E}bidi\u{2069}", "emoji 👩‍👩‍👧 and Ådresses", "'''single''' \"\"\"triple\"\"\"",
            "# not a comment", "\\u0041 is not an escape here", "",
        ])
    func escaping(text: String) throws {
        let box = try Box()
        let settings = HouseholdConfiguration(remotes: [
            RemoteSettings(
                name: "r",
                kind: .carddav(
                    url: "https://dav.example.org/" + text, username: text,
                    password: .file(box.file.passwordPath(forRemote: "r")), authScheme: .basic, caFile: nil,
                    caPath: nil, concurrency: 4))
        ])
        let written = settings.settingsText()
        let read = HouseholdConfiguration.validate(
            text: written, path: box.file.path, secretsDirectory: box.file.secretsDirectory)
        if text.isEmpty {
            // An empty user name is refused on reading: save refuses it too rather than writing it.
            #expect(!read.errors.isEmpty)
            #expect(throws: ConfigurationError.self) { try box.file.save(settings, expecting: .absent) }
        } else {
            #expect(read.errors.isEmpty, "\(read.errors) in \(written)")
            #expect(read.household == settings, "\(written)")
        }
    }

    @Test("A save expecting another version than the file's is refused, and the file is left as it was")
    func versionConflict() throws {
        let box = try Box()
        let first = try box.file.save(HouseholdConfiguration(boxName: "one"), expecting: .absent)
        // Another browser saves in between.
        let second = try box.file.save(HouseholdConfiguration(boxName: "two"), expecting: first)
        #expect(second != first)
        let before = try #require(readText(box.file.path))
        let refused = #expect(throws: ConfigurationError.self) {
            try box.file.save(HouseholdConfiguration(boxName: "three"), expecting: first)
        }
        #expect(refused?.reason == .changedMeanwhile)
        #expect(refused?.message.contains("changed meanwhile") == true)
        #expect(readText(box.file.path) == before)
        // A file that appeared since "none" was loaded is a conflict too.
        let other = try Box()
        makeFile(other.file.path, "[box]\nname = \"x\"\n")
        #expect(throws: ConfigurationError.self) { try other.file.save(HouseholdConfiguration(), expecting: .absent) }
    }

    @Test("Settings the box would refuse are not written")
    func invalidNotWritten() throws {
        let box = try Box()
        let error = #expect(throws: ConfigurationError.self) {
            try box.file.save(HouseholdConfiguration(boxName: "not a label"), expecting: .absent)
        }
        #expect(error?.message.contains("letters, digits and '-'") == true)
        let outside = HouseholdConfiguration(remotes: [
            RemoteSettings(
                name: "x",
                kind: .carddav(
                    url: "https://a.example/", username: "u", password: .file("/etc/shadow"), authScheme: .basic,
                    caFile: nil, caPath: nil, concurrency: 4))
        ])
        #expect(throws: ConfigurationError.self) { try box.file.save(outside, expecting: .absent) }
        #expect(!SmallFile.exists(box.file.path))
    }

    @Test("A failed write (a full disk) leaves the old file byte for byte, no temporary file, and says why")
    func failedWrite() throws {
        var box = try Box()
        let version = try box.file.save(family(box), expecting: .absent)
        let before = try SmallFile.read(box.file.path, limit: 1 << 20)
        // The disk fills up after the first 10 bytes.
        box.file.write = { fd, buffer in
            let offset = lseek(fd, 0, SEEK_CUR)
            guard offset < 10 else {
                errno = ENOSPC
                return -1
            }
            return Glibc.write(fd, buffer.baseAddress, min(buffer.count, 10 - Int(offset)))
        }
        let error = #expect(throws: ConfigurationError.self) {
            try box.file.save(HouseholdConfiguration(boxName: "other"), expecting: version)
        }
        #expect(error?.reason == .cannotWrite)
        #expect(
            error?.description
                == "\(box.file.path): cannot save the settings: No space left on device (the disk is full: make room "
                + "and try again); the file is as it was")
        #expect(try SmallFile.read(box.file.path, limit: 1 << 20) == before)
        #expect(
            directoryEntries(box.directory.path).sorted()
                == ["secrets", "settings.toml"].filter {
                    SmallFile.exists(box.directory.file($0))
                })
        #expect(try box.file.load().version == version)
        // A password write that fails leaves the old password.
        _ = try SettingsFile(path: box.file.path, secretsDirectory: box.file.secretsDirectory)
            .savePassword(Array("old-one".utf8), forRemote: "icloud")
        #expect(throws: ConfigurationError.self) {
            try box.file.savePassword(Array("a-much-longer-new-password".utf8), forRemote: "icloud")
        }
        #expect(readText(box.file.passwordPath(forRemote: "icloud")) == "old-one")
    }

    @Test("On a real full disk (a small tmpfs), a save fails and leaves the old file byte for byte")
    func fullTmpfs() throws {
        let mountPoint = try TemporaryDirectory()
        // Only root may mount; elsewhere the seam above is the test.
        guard geteuid() == 0, mount("tmpfs", mountPoint.path, "tmpfs", 0, "size=16k") == 0 else { return }
        defer { umount(mountPoint.path) }
        let file = SettingsFile(path: mountPoint.file("settings.toml"), secretsDirectory: mountPoint.file("secrets"))
        let version = try file.save(HouseholdConfiguration(boxName: "small"), expecting: .absent)
        let before = try SmallFile.read(file.path, limit: 1 << 20)
        // Fill the disk, leaving less than the new file needs.
        let filler = open(mountPoint.file("filler"), O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0x41, count: 1024)
        while block.withUnsafeBytes({ Glibc.write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        let folder = "/srv/" + String(repeating: "b", count: 200)
        let many = (0..<30).map { RemoteSettings(name: "book\($0)", kind: .vdir(folder: folder, createFolder: false)) }
        let error = #expect(throws: ConfigurationError.self) {
            try file.save(HouseholdConfiguration(remotes: many), expecting: version)
        }
        #expect(error?.message.contains("No space left on device") == true, "\(String(describing: error))")
        #expect(try SmallFile.read(file.path, limit: 1 << 20) == before)
        #expect(!directoryEntries(mountPoint.path).contains { $0.hasSuffix(".new") })
    }

    @Test("Password files are mode 0600 in a 0700 secrets folder, and read back as written")
    func passwordModes() throws {
        let box = try Box()
        let source = try box.file.savePassword(Array("correct horse ✓".utf8), forRemote: "icloud")
        #expect(source == .file(box.directory.file("secrets/icloud.password")))
        #expect(mode(box.file.secretsDirectory) == 0o700)
        #expect(mode(box.file.passwordPath(forRemote: "icloud")) == 0o600)
        #expect(try source.read() == "correct horse ✓")
        let status = try box.file.saveStatusPassword(Array("page".utf8))
        #expect(try status.read() == "page")
        #expect(mode(SettingsFile.statusPasswordPath(secretsDirectory: box.file.secretsDirectory)) == 0o600)
        // A secrets folder left open to others is made private again.
        chmod(box.file.secretsDirectory, 0o755)
        try box.file.savePassword(Array("again".utf8), forRemote: "icloud")
        #expect(mode(box.file.secretsDirectory) == 0o700)
    }

    @Test(
        "A password that is empty, not UTF-8 or holds a control character is refused, and never shown",
        arguments: [
            ([], "empty"),
            (Array("Sw0rd\u{1}fish".utf8), "control character"),
            (Array("Sw0rdfish\n".utf8), "control character"),
            (Array("Sw0rd\tfish".utf8), "control character"),
            (Array("Sw0rd\u{85}fish".utf8), "control character"),
            (Array("Sw0rd".utf8) + [0xC3, 0x28] + Array("fish".utf8), "not UTF-8"),
            ([UInt8](repeating: 0x61, count: 4096), "longer than"),
        ] as [([UInt8], String)])
    func refusedPasswords(password: [UInt8], reason: String) throws {
        let box = try Box()
        let error = #expect(throws: ConfigurationError.self) {
            try box.file.savePassword(password, forRemote: "icloud")
        }
        let text = error?.description ?? ""
        #expect(text.contains(reason), "\(text)")
        #expect(!text.contains("Sw0rd") && !text.contains("fish") && !text.contains("aaaa"), "\(text)")
        #expect(!SmallFile.exists(box.file.passwordPath(forRemote: "icloud")))
    }

    @Test("No error of a save names a password written before")
    func passwordsNeverInErrors() throws {
        let box = try Box()
        try box.file.savePassword(Array("Sw0rdfish".utf8), forRemote: "icloud")
        var errors: [ConfigurationError] = []
        do { try box.file.savePassword(Array("Sw0rdfish".utf8), forRemote: "../icloud") } catch { errors.append(error) }
        do { try box.file.save(family(box), expecting: SettingsFile.Version("0000000000000001")!) } catch {
            errors.append(error)
        }
        chmod(box.file.passwordPath(forRemote: "icloud"), 0o644)
        do { _ = try SecretSource.file(box.file.passwordPath(forRemote: "icloud")).read() } catch {
            errors.append(error)
        }
        #expect(errors.count == 3)
        for error in errors { #expect(!error.description.contains("Sw0rdfish"), "\(error)") }
    }

    @Test("Removing a remote removes its block and its password file; the others' stay")
    func removingRemote() throws {
        let box = try Box()
        var settings = family(box)
        for name in ["icloud", "radicale"] { try box.file.savePassword(Array("pw-\(name)".utf8), forRemote: name) }
        try box.file.saveStatusPassword(Array("page".utf8))
        var version = try box.file.save(settings, expecting: .absent)
        settings.remotes.removeAll { $0.name == "icloud" }
        version = try box.file.save(settings, expecting: version)
        #expect(try box.file.load().settings.remotes.map(\.name) == ["nas", "radicale"])
        #expect(!SmallFile.exists(box.file.passwordPath(forRemote: "icloud")))
        #expect(SmallFile.exists(box.file.passwordPath(forRemote: "radicale")))
        settings.statusPassword = nil
        try box.file.save(settings, expecting: version)
        #expect(!SmallFile.exists(SettingsFile.statusPasswordPath(secretsDirectory: box.file.secretsDirectory)))
    }

    @Test("Versions are 16 hexadecimal digits or none; anything else is no version")
    func versions() {
        #expect(SettingsFile.Version("none") == .absent)
        #expect(SettingsFile.Version("00000000000000ff")?.description == "00000000000000ff")
        #expect(SettingsFile.Version("ff") == nil)
        #expect(SettingsFile.Version("zzzzzzzzzzzzzzzz") == nil)
        #expect(SettingsFile.Version(bytes: Array("a".utf8)) != SettingsFile.Version(bytes: Array("b".utf8)))
    }
}

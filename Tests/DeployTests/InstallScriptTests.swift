import Glibc
import TestSupport
import Testing

/// Deploy/install.sh, staged into a folder with --destdir (no packages, user, chown or systemctl) and stub binaries
/// (--bin), so the tests neither build nor touch the machine.
@Suite struct InstallScriptTests {
    static let script = repositoryRoot + "/Deploy/install.sh"

    /// A scratch folder with stub binaries in bin/ and the staging folder root/.
    final class Staging {
        let scratch: TemporaryDirectory
        let bin: String
        let root: String

        init() throws {
            scratch = try TemporaryDirectory()
            bin = try scratch.folder("bin")
            root = scratch.file("root")
            try writeBinaries(version: "1")
        }

        /// Stub binaries that print their name and `version`.
        func writeBinaries(version: String) throws {
            for name in ["contactbox", "contactbox-remote"] {
                try writeFile(bin + "/" + name, "#!/bin/sh\necho \(name) \(version)\n", mode: 0o755)
            }
        }

        /// Runs install.sh --destdir root --bin bin --no-start with `arguments`.
        func install(_ arguments: [String]) throws -> CommandOutput {
            try runCommand(
                "/bin/bash", [script, "--destdir", root, "--no-start", "--skip-build", "--bin", bin] + arguments)
        }

        func staged(_ path: String) -> String { root + path }
    }

    @Test func stagesTheWholeTree() throws {
        let staging = try Staging()
        let result = try staging.install(["--board", "raspberry-pi-4"])
        #expect(result.status == 0, "install.sh: \(result.output)")

        for name in ["contactbox", "contactbox-remote"] {
            let path = staging.staged("/usr/local/bin/" + name)
            #expect(permissions(path) == 0o755, "\(path)")
            #expect(readFile(path) == readFile(staging.bin + "/" + name), "\(path) is not the given binary")
        }

        let boards = directoryEntries(repositoryRoot + "/Board").filter { $0.hasSuffix(".toml") }
        #expect(boards.contains("raspberry-pi-4.toml"))
        #expect(directoryEntries(staging.staged("/usr/share/contactbox/boards")) == boards)

        let unit = UnitFile(text: readFile(staging.staged("/etc/systemd/system/contactbox.service")) ?? "")
        #expect(unit.value("ExecStart") == "/usr/local/bin/contactbox run")
        #expect(permissions(staging.staged("/etc/systemd/system/contactbox.service")) == 0o644)
        #expect(
            readFile(staging.staged("/etc/avahi/services/contactbox.service"))
                == readFile(repositoryRoot + "/Deploy/contactbox.avahi.service"))

        // The configuration: the example, with the chosen board, readable by root and the contactbox group only.
        #expect(permissions(staging.staged("/etc/contactbox")) == 0o750)
        let configPath = staging.staged("/etc/contactbox/contactbox.toml")
        #expect(permissions(configPath) == 0o640)
        let config = readFile(configPath) ?? ""
        #expect(boardSetting(config) == "board = \"raspberry-pi-4\"", "config:\n\(config)")
        #expect(!exists(staging.staged("/etc/contactbox/contactbox.toml.example")))
        // Everything else is the example as it is.
        let example = readFile(repositoryRoot + "/Deploy/contactbox.example.toml") ?? ""
        let unchanged: (String) -> Bool = { !isBoardSetting($0) && !$0.isEmpty && $0 != "[panel]" }
        #expect(lines(config).filter(unchanged) == lines(example).filter(unchanged))

        #expect(result.output.contains("Staged in \(staging.root)"))
    }

    @Test func runningAgainUpgradesBinariesButKeepsTheConfiguration() throws {
        let staging = try Staging()
        let first = try staging.install(["--board", "raspberry-pi-4"])
        try #require(first.status == 0, "install.sh: \(first.output)")

        // The user edits the configuration; a new version is built.
        let configPath = staging.staged("/etc/contactbox/contactbox.toml")
        let edited = (readFile(configPath) ?? "") + "# my own edit, keep me\n"
        try writeFile(configPath, edited, mode: 0o640)
        try staging.writeBinaries(version: "2")

        let second = try staging.install(["--board", "raspberry-pi-5"])
        #expect(second.status == 0, "install.sh: \(second.output)")
        #expect(readFile(configPath) == edited, "the configuration was overwritten")
        #expect(boardSetting(readFile(configPath) ?? "") == "board = \"raspberry-pi-4\"")
        // The new example lies next to it, untouched (no board set in it).
        #expect(
            readFile(staging.staged("/etc/contactbox/contactbox.toml.example"))
                == readFile(repositoryRoot + "/Deploy/contactbox.example.toml"))
        #expect(readFile(staging.staged("/usr/local/bin/contactbox")) == "#!/bin/sh\necho contactbox 2\n")
        #expect(readFile(staging.staged("/usr/local/bin/contactbox-remote")) == "#!/bin/sh\necho contactbox-remote 2\n")
        // No temporary files left behind by the replace-by-rename.
        #expect(!directoryEntries(staging.staged("/usr/local/bin")).contains { $0.hasSuffix(".new") })
    }

    @Test func prefixMovesTheBinariesAndTheUnitFollows() throws {
        let staging = try Staging()
        let result = try staging.install(["--board", "simulated", "--prefix", "/usr", "--no-avahi"])
        #expect(result.status == 0, "install.sh: \(result.output)")
        #expect(permissions(staging.staged("/usr/bin/contactbox")) == 0o755)
        #expect(permissions(staging.staged("/usr/bin/contactbox-remote")) == 0o755)
        #expect(!exists(staging.staged("/usr/local/bin/contactbox")))
        let unit = UnitFile(text: readFile(staging.staged("/etc/systemd/system/contactbox.service")) ?? "")
        #expect(unit.value("ExecStart") == "/usr/bin/contactbox run")
        #expect(!exists(staging.staged("/etc/avahi/services/contactbox.service")))
        #expect(
            boardSetting(readFile(staging.staged("/etc/contactbox/contactbox.toml")) ?? "") == "board = \"simulated\"")
    }

    @Test(arguments: [
        ("Raspberry Pi 5 Model B Rev 1.0", "raspberry-pi-5"),
        ("Raspberry Pi 4 Model B Rev 1.4", "raspberry-pi-4"),
        ("Raspberry Pi 400 Rev 1.0", "raspberry-pi-4"),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", "raspberry-pi-3"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "raspberry-pi-3"),
        ("QEMU Virt", "simulated"),
        ("", "simulated"),
    ])
    func detectsTheBoardFromTheDeviceTree(model: String, board: String) throws {
        let staging = try Staging()
        let modelFile = staging.scratch.file("model")
        // The device tree's string ends in a NUL byte.
        try writeFile(modelFile, model + "\0")
        let result = try runCommand(
            "/usr/bin/env",
            [
                "CONTACTBOX_MODEL_FILE=" + modelFile, "/bin/bash", Self.script, "--destdir", staging.root, "--no-start",
                "--bin", staging.bin,
            ])
        #expect(result.status == 0, "install.sh: \(result.output)")
        #expect(result.output.contains("Board: \(board)\n"), "\(result.output)")
        #expect(
            boardSetting(readFile(staging.staged("/etc/contactbox/contactbox.toml")) ?? "") == "board = \"\(board)\"")
    }

    @Test func dryRunChangesNothing() throws {
        let staging = try Staging()
        let result = try staging.install(["--board", "raspberry-pi-3", "--dry-run"])
        #expect(result.status == 0, "install.sh: \(result.output)")
        #expect(!exists(staging.root))
        #expect(result.output.contains("would run: install -m 0755 \(staging.bin)/contactbox"))
        #expect(result.output.contains("Dry run: nothing was changed."))
    }

    /// avahi-publish (avahi-utils) publishes the box's name (`[box] name`) as NAME.local; --no-avahi leaves out
    /// both Avahi packages. A dry run on this machine (no --destdir, for which a package declares its own
    /// dependencies) lists the packages and changes nothing.
    @Test func avahiPackagesUnlessNoAvahi() throws {
        let staging = try Staging()
        let common = [Self.script, "--dry-run", "--no-start", "--bin", staging.bin, "--board", "simulated"]
        let with = try runCommand("/bin/bash", common)
        #expect(with.status == 0, "install.sh: \(with.output)")
        let packages = with.output.split(separator: "\n").first { $0.hasPrefix("==> Packages: ") } ?? ""
        #expect(packages.split(separator: " ").contains("avahi-daemon"), "\(with.output)")
        #expect(packages.split(separator: " ").contains("avahi-utils"), "\(with.output)")
        #expect(with.output.contains("Dry run: nothing was changed."))

        let without = try runCommand("/bin/bash", common + ["--no-avahi"])
        #expect(without.status == 0, "install.sh: \(without.output)")
        #expect(without.output.contains("==> Packages: "))
        #expect(!without.output.contains("avahi"), "\(without.output)")
    }

    @Test func helpAndBadUsage() throws {
        let help = try runCommand("/bin/bash", [Self.script, "--help"])
        #expect(help.status == 0)
        for option in [
            "--board", "--hostname", "--no-avahi", "--no-start", "--prefix", "--destdir", "--bin", "--skip-build",
            "--dry-run", "--help",
        ] {
            #expect(help.output.contains(option), "--help does not mention \(option)")
        }

        let unknown = try runCommand("/bin/bash", [Self.script, "--frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.output.contains("unknown option: --frobnicate"))

        let staging = try Staging()
        let badBoard = try staging.install(["--board", "commodore-64"])
        #expect(badBoard.status != 0)
        #expect(badBoard.output.contains("raspberry-pi-4"), "should list the boards: \(badBoard.output)")
        #expect(!exists(staging.root))

        // Renaming the machine makes no sense when only staging files.
        let hostname = try staging.install(["--hostname", "contactbox"])
        #expect(hostname.status != 0)
        #expect(!exists(staging.root))
    }

    /// The config's `board = ...` line(s), trimmed: exactly one expected.
    private func boardSetting(_ config: String) -> String {
        lines(config).filter { $0.hasPrefix("board") }.joined(separator: "\n")
    }

    /// `board = "..."`, commented out or not: the line install.sh sets.
    private func isBoardSetting(_ line: String) -> Bool {
        let setting = line.hasPrefix("#") ? line.dropFirst().trimmingSpaces() : line
        guard setting.hasPrefix("board") else { return false }
        return setting.dropFirst("board".count).trimmingSpaces().hasPrefix("=")
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
    }
}

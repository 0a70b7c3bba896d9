import Foundation
import TestSupport
import Testing

/// `check-config` and `run` refuse the same configurations, with exit 78 and the same words. `.timeLimit` only
/// guards against a command that would wait on a FIFO.
@Suite("check-config and the daemon's start run one check", .timeLimit(.minutes(5)))
struct ConfigCheckCommandTests {
    /// A configuration whose CardDAV remote's password file holds `password` (and a newline).
    func makeConfig(_ workspace: Workspace, password: String) throws -> String {
        try workspace.carddavConfig(
            name: "cloud", url: "https://contacts.example.org/", username: "ada", password: password,
            blocks: Workspace.daemonSettings(port: 1))
    }

    /// `check-config` and `run` on `config`: both exit 78 and say `words`.
    func expectBothRefuse(_ config: String, saying words: [String], never hidden: String? = nil) throws {
        for arguments in [["check-config", "--config", config], ["run", "--config", config]] {
            let result = try contactbox(arguments)
            #expect(result.status == 78, "\(arguments[0]): \(result.stderr)")
            for word in words { #expect(result.stderr.contains(word), "\(arguments[0]): \(result.stderr)") }
            if let hidden {
                #expect(!result.stderr.contains(hidden) && !result.stdout.contains(hidden), "\(arguments[0])")
            }
        }
    }

    @Test("a password file holding a NUL byte is refused by check-config and by the daemon's start")
    func nulPasswordRefused() throws {
        let workspace = try Workspace()
        let config = try makeConfig(workspace, password: "S3cr3t\0bar")
        try expectBothRefuse(
            config, saying: [workspace.path + "/cloud.password", "holds a NUL byte"], never: "S3cr3t")
    }

    @Test("a FIFO as a password file is refused by check-config and by the daemon's start, without waiting on it")
    func fifoPasswordRefused() throws {
        let workspace = try Workspace()
        let config = try makeConfig(workspace, password: "S3cr3t")
        let password = workspace.path + "/cloud.password"
        #expect(unlink(password) == 0)
        #expect(mkfifo(password, 0o600) == 0)
        try expectBothRefuse(config, saying: [password, "is a FIFO (named pipe), not a regular file"])
    }

    @Test("more remotes than the limit are refused by check-config and by the daemon's start")
    func tooManyRemotesRefused() throws {
        let workspace = try Workspace()
        let blocks = (1...40).map { "[[remote]]\nname = \"r\($0)\"\nkind = \"vdir\"\nfolder = \"/srv/r\($0)\"\n" }
        let config = try workspace.file("contactbox.toml", blocks.joined())
        try expectBothRefuse(config, saying: ["too many [[remote]] blocks: 40 found, at most 32 are allowed"])
    }

    @Test("check-config quotes a long value by its first 80 characters and its length")
    func longValueQuotedShort() throws {
        let workspace = try Workspace()
        let value = String(repeating: "x", count: 1_000_000)
        let config = try workspace.file(
            "contactbox.toml", "[[remote]]\nname = \"nas\"\nkind = \"vdir\"\nfolder = \"\(value)\"\n")
        let result = try contactbox(["check-config", "--config", config])
        #expect(result.status == 78)
        #expect(
            result.stderr.contains(
                "folder must be an absolute path, starting with / (found \"" + String(repeating: "x", count: 80)
                    + "…\" (1,000,000 bytes))"), "\(result.stderr.prefix(500))")
        #expect(result.stderr.utf8.count < 1_000, "\(result.stderr.prefix(500))")
    }
}

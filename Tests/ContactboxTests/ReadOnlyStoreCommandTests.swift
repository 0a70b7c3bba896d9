import Foundation
import TestSupport
import Testing

/// `list`, `show`, `check` and `export` on a store whose folder is a read-only mount: each runs in a mount
/// namespace of its own (unshare), where the folder is bound read-only, so nothing outside the test sees the mount
/// and nothing needs unmounting. Root is needed for that; as another user, `chmod` does the same and is used.
@Suite("Reading commands on a read-only store", .serialized)
struct ReadOnlyStoreCommandTests {
    static let unshare = "/usr/bin/unshare"

    /// Runs `contactbox arguments` with `folder` mounted read-only (root), or made read-only with chmod (others).
    func readOnly(_ folder: String, _ arguments: [String]) throws -> CommandResult {
        guard getuid() == 0 else {
            chmod(folder, 0o555)
            defer { chmod(folder, 0o755) }
            return try contactbox(arguments)
        }
        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\""
        let outcome = try ChildProcess.run(
            Self.unshare,
            ["--mount", "--propagation", "private", "sh", "-c", script, "sh", folder, contactboxBinary] + arguments)
        return CommandResult(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
    }

    @Test(
        "list, show, check and export read a store on a read-only mount; import says it cannot write",
        .enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: unshare)))
    func readOnlyMount() throws {
        let work = try Workspace()
        _ = try contactbox([
            "import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann") + card("bob", "Bob")),
        ])
        let folder = (work.db as NSString).deletingLastPathComponent
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()

        let list = try readOnly(folder, ["list", "--db", work.db])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Ann\tann") && list.stdout.contains("Bob\tbob"))
        let show = try readOnly(folder, ["show", "--db", work.db, "bob"])
        #expect(show.status == 0 && show.stdout.contains("FN:Bob"), "\(show.stderr)")
        let check = try readOnly(folder, ["check", "--db", work.db])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let export = try readOnly(folder, ["export", "--db", work.db, "--out", work.path + "/out.vcf"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try work.read("out.vcf").contains("FN:Ann"))
        let write = try readOnly(folder, ["import", "--db", work.db, work.path + "/in.vcf"])
        #expect(write.status == 74, "\(write.stderr)")
        // The words say what is wrong, not which pragma failed.
        #expect(write.stderr.contains("\(work.db) is read-only here"), "\(write.stderr)")
        #expect(!write.stderr.contains("PRAGMA"), "\(write.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
        #expect(try contactbox(["check", "--db", work.db]).status == 0)
    }
}

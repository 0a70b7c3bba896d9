import Glibc
import TestSupport
import Testing

/// Deploy/package.sh and Deploy/package-check.sh: their usage, and the maintainer scripts of Deploy/debian/ they put
/// in the package. The package itself is built and checked by Deploy/package-check.sh, from the release binaries
/// (Deploy/test.sh runs it): these tests build nothing.
@Suite struct PackageScriptTests {
    static let package = repositoryRoot + "/Deploy/package.sh"
    static let check = repositoryRoot + "/Deploy/package-check.sh"
    static let maintainerScripts = ["postinst", "prerm", "postrm"].map { "Deploy/debian/" + $0 }
    static let shellcheck = findTool("shellcheck")

    @Test func helpAndBadUsage() throws {
        let help = try runCommand("/bin/bash", [Self.package, "--help"])
        #expect(help.status == 0)
        for option in ["--bin", "--out", "--fast", "--help", "SOURCE_DATE_EPOCH"] {
            #expect(help.output.contains(option), "package.sh --help does not mention \(option)")
        }
        let unknown = try runCommand("/bin/bash", [Self.package, "--frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.output.contains("unknown option: --frobnicate"))
        let noValue = try runCommand("/bin/bash", [Self.package, "--bin"])
        #expect(noValue.status == 64)

        let checkHelp = try runCommand("/bin/bash", [Self.check, "--help"])
        #expect(checkHelp.status == 0)
        #expect(checkHelp.output.contains("--bin") && checkHelp.output.contains("--rootfs"))
        let noBin = try runCommand("/bin/bash", [Self.check])
        #expect(noBin.status == 64)
    }

    @Test func aFolderWithoutTheBinariesIsRefused() throws {
        let scratch = try TemporaryDirectory()
        let empty = try scratch.folder("bin")
        let result = try runCommand("/bin/bash", [Self.package, "--bin", empty, "--out", scratch.file("out")])
        #expect(result.status == 1)
        #expect(result.output.contains("no executable \(empty)/contactbox"), "\(result.output)")
        #expect(!exists(scratch.file("out")))
    }

    /// The maintainer scripts run under /bin/sh (dash on Debian), with `set -e`, as Debian's policy asks.
    @Test func maintainerScriptsArePOSIXShell() throws {
        for script in Self.maintainerScripts {
            let text = try #require(readFile(repositoryRoot + "/" + script))
            #expect(text.hasPrefix("#!/bin/sh\n"), "\(script)")
            #expect(text.contains("\nset -e\n"), "\(script)")
            #expect(permissions(repositoryRoot + "/" + script) == 0o755, "\(script)")
            let syntax = try runCommand("/bin/sh", ["-n", script])
            #expect(syntax.status == 0, "sh -n \(script): \(syntax.output)")
        }
    }

    @Test(.enabled(if: shellcheck != nil, "needs shellcheck (package shellcheck)"))
    func maintainerScriptsPassShellcheck() throws {
        let result = try runCommand(Self.shellcheck!, ["-s", "sh"] + Self.maintainerScripts)
        #expect(result.status == 0, "shellcheck -s sh: \(result.output)")
    }

    /// A removal stops the service before it exports; a purge keeps the export in /var/backups before it removes the
    /// store, and leaves the system user.
    @Test func removalExportsAndPurgeKeepsTheExport() throws {
        let prerm = try #require(readFile(repositoryRoot + "/Deploy/debian/prerm"))
        let stop = try #require(prerm.range(of: "deb-systemd-invoke stop 'contactbox.service'"))
        let exportCall = try #require(prerm.range(of: "/usr/bin/contactbox export"))
        #expect(stop.lowerBound < exportCall.lowerBound)
        #expect(prerm.contains("--db /var/lib/contactbox/contacts.sqlite"))

        let postrm = try #require(readFile(repositoryRoot + "/Deploy/debian/postrm"))
        let backup = try #require(postrm.range(of: "/var/backups/contactbox-export-"))
        let removal = try #require(postrm.range(of: "rm -rf /var/lib/contactbox"))
        #expect(backup.lowerBound < removal.lowerBound)
        #expect(!postrm.contains("deluser"))
    }
}

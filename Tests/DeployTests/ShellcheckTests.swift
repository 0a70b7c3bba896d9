import TestSupport
import Testing

/// The Deploy scripts stay shellcheck-clean (with -x, so what they source is checked in place).
@Suite struct ShellcheckTests {
    static let shellcheck = findTool("shellcheck")

    @Test(.enabled(if: shellcheck != nil, "needs shellcheck (package shellcheck)"))
    func deployScriptsPassShellcheck() throws {
        let scripts = directoryEntries(repositoryRoot + "/Deploy").filter { $0.hasSuffix(".sh") }.map { "Deploy/" + $0 }
        #expect(scripts.contains("Deploy/install.sh"))
        // From the repository's root: the scripts' `# shellcheck source=Deploy/lib/...` paths start there.
        let result = try runCommand(Self.shellcheck!, ["-x"] + scripts)
        #expect(result.status == 0, "shellcheck \(scripts.joined(separator: " ")):\n\(result.output)")
    }
}

import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` with the git description of the checkout (`v0.1-3-gabc1234-dirty`), so that
/// `contactbox --version` names the exact build. Re-runs when HEAD or the index changes; "unknown" outside git.
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        let root = context.package.directoryURL
        let git = root.appending(path: ".git")
        let inputs = ["HEAD", "index"].map { git.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let script = """
            id=$(git -C "$1" describe --always --dirty --tags 2>/dev/null || echo unknown)
            printf 'let buildID = "%s"\\n' "$id" > "$2"
            """
        return [
            .buildCommand(
                displayName: "Recording the build id",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", root.path, output.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}

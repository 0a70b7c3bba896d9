import ArgumentParser
import CLISupport

/// `contactbox-remote`: the subcommands that talk to remotes or use the status server's files, run by `contactbox
/// sync`, `discover`, `pair`, `remote` and `token`.
@main
struct ContactBoxRemote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contactbox",
        abstract: "Keeps a household's contacts in a local store and in step with their address books.",
        discussion: Exit.summary,
        version: "\(contactboxVersion) (build \(buildID))",
        subcommands: [
            RunCommand.self, SyncCommand.self, DiscoverCommand.self, PairCommand.self, RemoteCommand.self,
            TokenCommand.self,
        ]
    )

    static func main() {
        MemoryTuning.apply()
        main(Array(CommandLine.arguments.dropFirst()))
    }
}

import ArgumentParser
import CLISupport
import Glibc
import SystemSupport

/// The `contactbox` command: the appliance's command line.
@main
struct ContactBox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contactbox",
        abstract: "Keeps a household's contacts in a local store and in step with their address books.",
        discussion: """
            The store is one SQLite file, the same for every command: the path given with --db, else the \
            CONTACTBOX_DB environment variable, else the configuration's store, else \
            /var/lib/contactbox/contacts.sqlite. Remotes are set up on the status page or with `contactbox remote add` (the \
            settings file next to the store), or by the administrator in /etc/contactbox/contactbox.toml (--config, \
            CONTACTBOX_CONFIG).

            \(Exit.summary)
            """,
        version: "\(contactboxVersion) (build \(buildID))",
        subcommands: [
            RemoteSubcommand.Run.self, RemoteSubcommand.Sync.self, RemoteSubcommand.Discover.self,
            RemoteSubcommand.Pair.self, RemoteSubcommand.Remote.self, RemoteSubcommand.Token.self, ImportCommand.self,
            ExportCommand.self,
            ListCommand.self, ShowCommand.self, EditCommand.self, DeleteCommand.self, HistoryCommand.self,
            RunsCommand.self, RestoreCommand.self, UndoCommand.self, PruneHistoryCommand.self, CheckCommand.self,
            CopyCommand.self, RecoverCommand.self,
            CheckConfigCommand.self,
        ]
    )

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, RemoteSubcommand.names.contains(first) {
            RemoteSubcommand.run(arguments)
        }
        MemoryTuning.apply()
        main(arguments)
    }
}

/// The subcommands that talk to remotes live in `contactbox-remote`, next to this binary: this one never loads
/// libcurl and libxml2 (see Package.swift). They are listed here for `--help` and run there.
enum RemoteSubcommand {
    static let names: Set<String> = ["run", "sync", "discover", "pair", "remote", "token"]

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run", abstract: "Run the appliance: the daemon systemd starts (see run --help).")
        func run() throws { RemoteSubcommand.run(["run"]) }
    }

    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: "Sync the store with the configured address books (see sync --help).")
        func run() throws { RemoteSubcommand.run(["sync"]) }
    }

    struct Discover: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discover", abstract: "List the address books at a CardDAV URL (see discover --help).")
        func run() throws { RemoteSubcommand.run(["discover"]) }
    }

    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair", abstract: "Pair a browser with the box by a one-time code (see pair --help).")
        func run() throws { RemoteSubcommand.run(["pair"]) }
    }

    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remote",
            abstract: "Add, list or remove address books: remote add|list|remove (see remote --help).")
        func run() throws { RemoteSubcommand.run(["remote"]) }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Make, list or revoke the JSON API's tokens: token create|list|revoke (see token --help).")
        func run() throws { RemoteSubcommand.run(["token"]) }
    }

    /// Replaces this process with `contactbox-remote ARGUMENTS`; returns only by exiting on failure.
    static func run(_ arguments: [String]) -> Never {
        var link = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &link, link.count - 1)
        let executable =
            length > 0 ? String(decoding: link[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let folder = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
            separator: "/")
        let path = folder + "/contactbox-remote"
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        Terminal.error("cannot run \(path): \(SystemError.text(errno)) (it is installed next to contactbox)")
        exit(Exit.ioError.rawValue)
    }
}

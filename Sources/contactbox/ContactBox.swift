import ArgumentParser

/// The `contactbox` command: the appliance's command line.
@main
struct ContactBox: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "contactbox",
        abstract: "Keeps a household's contacts in a local store and in step with their address books.",
        discussion: """
            The store is one SQLite file: /var/lib/contactbox/contacts.sqlite on the appliance, or the path given \
            with --db or the CONTACTBOX_DB environment variable.

            Exit codes: 0 done; 1 check found problems, a contact was not found, or some contacts could not be \
            synced; 10 deletions are held until confirmed (sync --confirm-deletions); 64 bad usage; 65 some input \
            cards were skipped (the rest were imported); 66 an input file is missing or unreadable; 73 an output \
            file could not be written; 74 the store could not be read or written; 75 a remote could not be \
            reached (try again later); 77 a remote refused the login; 78 the configuration is wrong.
            """,
        version: "\(version) (build \(buildID))",
        subcommands: [
            SyncCommand.self, DiscoverCommand.self, ImportCommand.self, ExportCommand.self, ListCommand.self,
            ShowCommand.self, CheckCommand.self, CheckConfigCommand.self,
        ]
    )

    static func main() {
        MemoryTuning.skipUnusedLibraryInit()
        MemoryTuning.apply()
        main(Array(CommandLine.arguments.dropFirst()))
    }
}

/// Exit codes from sysexits(3), which scripts and systemd already know.
enum Exit {
    static let findings = ExitCode(1)
    static let dataError = ExitCode(65)
    static let noInput = ExitCode(66)
    static let cannotCreate = ExitCode(73)
    static let ioError = ExitCode(74)
    /// Deletions wait for a person: not an error, not done either.
    static let needsConfirmation = ExitCode(10)
    static let temporaryFailure = ExitCode(75)
    static let noPermission = ExitCode(77)
    static let configError = ExitCode(78)
}

import ArgumentParser
import CLISupport
import Config
import ContactStore
import Glibc
import SystemSupport

struct PruneHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune-history",
        abstract: "Remove history older than the retention allows (the daemon does it after each sync pass).",
        discussion: """
            What is kept is set in the configuration's [history] section: max_age (default "90d": versions older \
            than this go) and max_versions (default 50 per contact; the oldest beyond it go; 0 for no limit). The \
            last version of a deleted contact is kept as long as it is younger than max_age, whatever the count. \
            --max-age and --max-versions override the file; without a configuration file the defaults apply. \
            Rows go in chunks of at most 100 per transaction. Pruned history cannot be restored: `restore --as-of` \
            and `undo` of runs older than max_age no longer see what was pruned.

            \(Exit.help("prune-history"))
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Keep versions younger than this (90d, 12h).", valueName: "duration"))
    var maxAge: String?

    @Option(help: ArgumentHelp("Keep at most this many versions per contact (0: no limit).", valueName: "count"))
    var maxVersions: Int?

    func validate() throws {
        if let maxAge, Configuration.duration(maxAge) == nil {
            throw ValidationError("--max-age: '\(maxAge)' is not a duration such as 90d or 12h")
        }
        if let maxVersions, maxVersions < 0 { throw ValidationError("--max-versions must be 0 or more") }
    }

    func run() throws {
        let config = store.config
        let configuration = access(config.path, F_OK) == 0 ? try config.load() : nil
        var settings = configuration?.history ?? HistorySettings()
        if let maxAge, let span = Configuration.duration(maxAge) { settings.maxAge = span }
        if let maxVersions { settings.maxVersions = maxVersions == 0 ? nil : maxVersions }
        let contacts = try store.open(configuration: configuration)
        do {
            let removed = try contacts.pruneHistory(
                ContactStore.Retention(maxAge: settings.maxAge, maxVersions: settings.maxVersions))
            let size = try contacts.historySize()
            Terminal.note(
                "Removed \(removed) history row\(removed == 1 ? "" : "s"); \(size.rows) kept"
                    + " (\(ByteCount.text(size.bytes)) of versions).")
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
    }
}

import ArgumentParser
import CLISupport
import ContactStore
import SafeText

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the versions of one contact, or the latest changes in the store.",
        discussion: """
            Each line is one change, newest first: its number (#N, what `restore UID --version N` takes), the time, \
            what it was (created, updated, deleted, or archived: a version kept aside, such as a conflict's loser), \
            what made it (a sync run and its remote, an import, a delete or edit on the command line, a restore or \
            an undo, each with its run number for `contactbox undo`) and a summary: the name and which fields \
            changed. For an update, the version shown by number is the one before the change.

            \(Exit.help("history"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "A contact's UID; without it, the latest changes of all contacts.")
    var uid: String?

    @OptionGroup var listing: ListingOptions

    func run() throws {
        let contacts = try store.openForReading()
        var text = HistoryText(store: contacts)
        do {
            if let uid {
                let current = try contacts.contact(uid: uid)
                if let current, !listing.json {
                    print(
                        "current: " + printable(current.displayName)
                            + (current.deleted ? " (deleted)" : "") + "  " + printable(current.uid))
                }
                var shown = 0
                func page(before: Int64?, size: Int) throws -> [HistoryEntry] {
                    try contacts.history(uid: uid, before: before, limit: size)
                }
                try listing.forEach(page, id: \.id) {
                    try show(text.describe($0))
                    shown += 1
                }
                if current == nil, shown == 0 {
                    Terminal.error("no contact and no history with UID \(printable(uid))")
                    throw Exit.findings
                }
            } else {
                func page(before: Int64?, size: Int) throws -> [HistoryEntry] {
                    try contacts.latestHistory(before: before, limit: size)
                }
                try listing.forEach(page, id: \.id) {
                    try show(text.describe($0))
                }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("cannot read the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
    }

    private func show(_ described: HistoryText.Described) throws {
        print(listing.json ? described.json : described.textLine)
    }
}

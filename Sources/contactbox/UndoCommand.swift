import ArgumentParser
import CLISupport
import ContactStore
import SafeText

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back what one sync run or local operation did to the store.",
        discussion: """
            RUN is a number from `contactbox runs`. Each contact the run changed goes back to how it was just before \
            the run: contacts it created are deleted, those it deleted come back, those it changed get their \
            earlier version. Only those contacts: nothing else is touched. A contact that changed again after the \
            run is left as it is and listed as skipped (its later change is newer than the undo knows; take it \
            back by hand with `contactbox history UID` and `contactbox restore UID --version N`).

            The undo is a run of its own, recorded in the history: undoing it gives back the state it replaced. \
            The next sync carries the changes to every remote like local edits; a sync that would then delete more \
            than the remote's max_delete_share holds the deletions (exit 10) until `contactbox sync \
            --confirm-deletions` or a long press of the button confirms them.

            Exit 1 also when some contacts were skipped, or RUN is unknown or has not finished.

            \(Exit.help("undo"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The run to take back (see `contactbox runs`).", valueName: "run"))
    var runID: Int64

    @Flag(help: "Only list what would change.")
    var dryRun = false

    func run() throws {
        let contacts = try store.open()
        let summary: RestoreSummary
        do {
            summary = try contacts.undo(run: runID, dryRun: dryRun) { print(RestoreCommand.line($0)) }
        } catch let error as ContactStoreError where error.code == .notFound || error.code == .invalidArgument {
            Terminal.error(error.message)
            throw Exit.findings
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        Terminal.note(RestoreCommand.summaryText(summary, what: "Undo of run \(runID)", dryRun: dryRun))
        if summary.skipped > 0 { throw Exit.findings }
    }
}

import ArgumentParser
import CLISupport
import ContactStore
import SystemSupport
import VCard

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import contacts from .vcf files or vCard folders.",
        discussion: """
            A file may hold any number of cards (vCard 2.1, 3.0 or 4.0); a folder is read as one card per .vcf \
            file (a vdir, as vdirsyncer and khard keep them). A card with a problem is reported with its file \
            and line and skipped alone. An exact duplicate of a stored contact is merged; a card whose UID is \
            taken by a different contact is kept too, under a fresh UID, unless --update is given: then it \
            replaces that contact, whose old version stays in the store's history.

            \(Exit.help("import"))
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: "Replace a stored contact with a card of the same UID (re-importing an edited export).")
    var update = false

    @Argument(help: ArgumentHelp("Files or folders to import.", valueName: "file-or-folder"))
    var inputs: [String]

    func run() throws {
        let contacts = try store.open()
        let runID: Int64
        do {
            runID = try contacts.beginOperation(.import, note: inputs.joined(separator: " "))
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        // The chunks committed before a failure stay, and the run with them, so that `undo` can take them back.
        var outcome = SyncOutcome.ok
        defer { try? contacts.finishOperation(id: runID, outcome: outcome) }
        var importer = Importer(
            store: contacts, totalBytes: inputs.reduce(0) { $0 + Self.size(of: $1) }, updating: update, runID: runID)
        let started = monotonicMillis()
        var missing = false
        for input in inputs {
            do {
                if SmallFile.isDirectory(input) {
                    try FileSystem.forEachCardFile(in: input) { try importer.importFile($0) }
                } else {
                    try importer.importFile(input)
                }
            } catch let error as Importer.Unreadable {
                Terminal.error(error.description)
                missing = true
            } catch let error as FileSystem.Failure {
                Terminal.error(error.description)
                missing = true
            } catch {
                importer.finish()
                outcome = .failed
                Terminal.error("cannot write to the store \(contacts.path): \(error)")
                throw Exit.ioError
            }
        }
        importer.finish()
        let elapsed = Duration.milliseconds(monotonicMillis() - started)
        Terminal.note(importer.summary.description + " in \(elapsed.formattedSeconds(decimals: 1)) s.")
        if missing { throw Exit.noInput }
        if importer.summary.skipped > 0 { throw Exit.dataError }
    }

    private static func size(of input: String) -> Int {
        guard SmallFile.isDirectory(input) else { return SmallFile.size(input) }
        var total = 0
        try? FileSystem.forEachCardFile(in: input) { total += SmallFile.size($0) }
        return total
    }
}

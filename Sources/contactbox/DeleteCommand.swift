import ArgumentParser
import CLISupport
import ContactStore
import SafeText

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete contacts from the store; the next sync deletes them on every remote.",
        discussion: """
            Each contact becomes a tombstone and its last version goes to the history, so `contactbox restore UID` \
            brings it back, and `contactbox undo RUN` takes the whole delete back (the run number is printed). The \
            next sync carries the deletions to every remote, through the sync's guard against mass deletions.

            \(Exit.help("delete"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The UIDs of the contacts to delete (see `contactbox list`).")
    var uids: [String]

    func validate() throws {
        guard !uids.isEmpty else { throw ValidationError("name at least one UID to delete") }
    }

    func run() throws {
        let contacts = try store.open()
        var missing = false
        do {
            // Every UID is looked up first: when none names a contact, nothing was done and no run is recorded.
            var present: [(uid: String, name: String)] = []
            var seen = Set<String>()
            for uid in uids where seen.insert(uid).inserted {
                let found = try contacts.contact(uid: uid)
                if let found, !found.deleted {
                    present.append((uid, found.displayName))
                } else {
                    Terminal.error(MissingContact.text(uid: uid, found: found))
                    missing = true
                }
            }
            if !present.isEmpty {
                let runID = try contacts.beginOperation(.delete, note: present.map(\.uid).joined(separator: " "))
                var deleted = 0
                for (uid, name) in present
                where try contacts.delete(uid: uid, reason: "deleted on the command line", runID: runID) {
                    print("deleted  " + printable(name) + "  " + printable(uid))
                    deleted += 1
                }
                try contacts.finishOperation(id: runID)
                Terminal.note(
                    "Deleted \(deleted) contact\(deleted == 1 ? "" : "s") (run \(runID); `contactbox undo \(runID)` takes it back)."
                )
            }
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        if missing { throw Exit.findings }
    }
}

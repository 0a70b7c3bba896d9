import ArgumentParser
import CLISupport
import ContactStore
import SystemSupport

struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Make a safety copy of the store now, as the box does once a day.",
        discussion: """
            Checks the store (as `check --quick`), then copies it, checked, to copies/newest.sqlite beside it (the newest before becomes \
            copies/older.sqlite), as the box does once a day when the store changed; nothing is made when nothing \
            changed since the newest. `contactbox recover` puts a copy back. Useful before an upgrade, or to take \
            a copy away. The store is read with SQLite's online backup, a few pages at a time, so the box may run \
            meanwhile (a sync that writes starts the copy over).

            \(Exit.help("copy"))
            """)

    @OptionGroup var store: StoreOptions

    func run() throws {
        let contacts = try store.open()
        let started = monotonicMillis()
        let result: ContactStore.CopyResult
        do {
            // As the box does: a copy only of a store that passes the quick check.
            let problems = try contacts.quickCheck()
            guard problems.isEmpty else {
                for problem in problems.prefix(10) { print("damaged: \(problem)") }
                Terminal.error("the store \(contacts.path) is damaged: no copy made; see `contactbox recover`")
                throw Exit.findings
            }
            result = try contacts.makeCopy()
        } catch let error as ExitCode {
            throw error
        } catch let error as ContactStoreError where error.code == .damaged {
            Terminal.error("\(error.message): no copy made; see `contactbox recover`")
            throw Exit.findings
        } catch {
            Terminal.error("cannot copy the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        switch result {
        case .made(let copy):
            Terminal.note(
                "Copied \(contacts.path) to \(copy.path) (\(ByteCount.text(copy.bytes)), checked) in"
                    + " \(monotonicMillis() - started) ms.")
        case .unchanged, .stopped:
            Terminal.note("Nothing changed since the newest copy: none made.")
        }
    }
}

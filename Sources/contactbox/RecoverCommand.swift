import ArgumentParser
import CLISupport
import ContactStore
import Glibc
import SystemSupport

struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Put the newest good safety copy in place of a damaged store.",
        discussion: """
            The box keeps two safety copies of its store in the folder `copies` beside it (newest.sqlite and \
            older.sqlite), made once a day when the store changed, each checked when it is made. When the store is \
            damaged (the LEDs show the store look, `contactbox check` or the status page says so), this checks \
            the copies, newest first, and puts the first good one in place. The damaged store is moved aside \
            (contacts.sqlite.damaged-TIME, with its write-ahead log), never deleted. A healthy store is left as it \
            is unless --force is given.

            Stop the box first (`systemctl stop contactbox`): the store must not be open. Then start it again: its \
            first sync brings back from the remotes whatever changed there since the copy was made.

            \(Exit.help("recover"))
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: "Put the copy in place even when the store passes the check.")
    var force = false

    func run() throws {
        let path = try store.path()
        guard let lock = StoreLock(storePath: path, exclusive: true) else {
            Terminal.error(
                "the store \(path) is open in the running box: stop it first (systemctl stop contactbox), then run"
                    + " recover again")
            throw Exit.temporaryFailure
        }
        defer { withExtendedLifetime(lock) {} }
        if access(path, F_OK) == 0 {
            let problems = ContactStore.problems(atPath: path)
            if problems.isEmpty, !force {
                Terminal.note("\(path) passes the check: nothing to recover (--force puts the copy in place anyway).")
                return
            }
            for problem in problems.prefix(10) { print("damaged: \(problem)") }
        }
        guard let copy = ContactStore.newestGoodCopy(of: path) else {
            Terminal.error(
                ContactStore.copies(of: path).isEmpty
                    ? "no safety copy in \(ContactStore.copiesFolder(of: path)): the box makes one a day when the store"
                        + " changed"
                    : "no good safety copy in \(ContactStore.copiesFolder(of: path)): each fails the check")
            throw Exit.findings
        }
        let aside: String
        let count: Int
        do {
            aside = try ContactStore.recover(path, from: copy, at: wallClockMillis())
            count = try ContactStore(path: path).count()
        } catch {
            Terminal.error("cannot put the copy \(copy.path) in place of \(path): \(error)")
            throw Exit.ioError
        }
        Terminal.note(
            "Recovered \(path) from the safety copy made \(PointInTime.localText(copy.madeAt)): \(count) contact"
                + "\(count == 1 ? "" : "s"). The store that was there is kept as \(aside). Start the box"
                + " (systemctl start contactbox) or run `contactbox sync`: the sync brings back what changed on the"
                + " remotes since the copy.")
    }
}

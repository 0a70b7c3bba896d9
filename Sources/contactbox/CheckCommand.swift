import ArgumentParser
import CLISupport
import ContactStore
import SystemSupport

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store: SQLite integrity, foreign keys, and the store's own invariants.",
        discussion: """
            Prints each finding; exits 1 if there is any, 0 when the store is healthy. Also says how many history \
            rows the store keeps and how much their versions take (see `contactbox prune-history`).

            \(Exit.help("check"))
            """)

    @OptionGroup var store: StoreOptions

    @Flag(
        help: """
            Only SQLite's quick check of the file (every page and record, no index compared with its table): what             the box runs at its start and once a day, to find a damaged store.
            """)
    var quick = false

    func run() throws {
        let contacts = try store.openForReading()
        let findings: [String]
        let started = monotonicMillis()
        do {
            findings = try quick ? contacts.quickCheck() : contacts.check()
        } catch {
            Terminal.error("cannot check the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        for finding in findings { print(finding) }
        let count = (try? contacts.count()) ?? 0
        guard findings.isEmpty else {
            Terminal.note("\(findings.count) problem\(findings.count == 1 ? "" : "s") found in \(contacts.path).")
            throw Exit.findings
        }
        if quick {
            Terminal.note(
                "\(contacts.path): sound (\(count) contacts; quick check in \(monotonicMillis() - started) ms).")
            return
        }
        let history: (rows: Int64, bytes: Int64) = (try? contacts.historySize()) ?? (0, 0)
        Terminal.note(
            "\(contacts.path): healthy, \(count) contact\(count == 1 ? "" : "s"); history: \(history.rows) row"
                + "\(history.rows == 1 ? "" : "s"), \(ByteCount.text(history.bytes)) of versions.")
    }
}

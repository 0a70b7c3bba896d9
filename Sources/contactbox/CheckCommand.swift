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

    func run() throws {
        let contacts = try store.openForReading()
        let findings: [String]
        do {
            findings = try contacts.check()
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
        let history: (rows: Int64, bytes: Int64) = (try? contacts.historySize()) ?? (0, 0)
        Terminal.note(
            "\(contacts.path): healthy, \(count) contact\(count == 1 ? "" : "s"); history: \(history.rows) row"
                + "\(history.rows == 1 ? "" : "s"), \(ByteCount.text(history.bytes)) of versions.")
    }
}

import ArgumentParser
import CLISupport
import ContactStore
import SafeText

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List contacts by name: one per line, the name, a tab, and the UID.",
        discussion: Exit.help("list"))

    @OptionGroup var store: StoreOptions

    @Option(
        help: ArgumentHelp(
            "Only contacts whose name, organisation or email contains this text (any letter case), or, for a phone"
                + " number, whose phone numbers contain its digits (spaces, dashes, dots, brackets and + aside).",
            valueName: "text"))
    var search: String?

    func run() throws {
        let contacts = try store.openForReading()
        var listed = 0
        do {
            try contacts.forEachContact(search: search) { contact in
                // Each field on its own: a tab in a name is escaped too, so it cannot make a second column.
                print(printable(contact.displayName) + "\t" + printable(contact.uid))
                listed += 1
            }
        } catch {
            Terminal.error("cannot read the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        if listed == 0, search != nil { throw Exit.findings }
    }
}

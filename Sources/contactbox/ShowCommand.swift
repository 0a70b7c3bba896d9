import ArgumentParser
import CLISupport
import ContactStore
import SafeText

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print one contact's vCard.", discussion: Exit.help("show"))

    @OptionGroup var store: StoreOptions

    @Argument(help: "The contact's UID (see `contactbox list`).")
    var uid: String

    func run() throws {
        let contacts = try store.openForReading()
        let contact: StoredContact?
        do {
            contact = try contacts.contact(uid: uid)
        } catch {
            Terminal.error("cannot read the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        guard let contact, !contact.deleted else {
            Terminal.error(MissingContact.text(uid: uid, found: contact))
            throw Exit.findings
        }
        print(printable(contact.vcard, keepingLayout: true), terminator: "")
    }
}

import CLISupport
import ContactStore

extension ContactStore {
    /// Walks the live contacts by name, one page of at most 100 at a time, so that memory does not grow with the
    /// size of the store.
    func forEachContact(search: String? = nil, _ body: (StoredContact) throws -> Void) throws {
        var cursor: ContactCursor?
        while true {
            let page = try contacts(after: cursor, limit: ContactStore.chunkLimit, search: search)
            for contact in page { try body(contact) }
            guard page.count == ContactStore.chunkLimit, let last = page.last else { return }
            cursor = last.cursor
        }
    }
}

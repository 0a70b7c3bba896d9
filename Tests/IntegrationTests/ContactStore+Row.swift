import ContactStore
import Sync

extension ContactStore {
    /// The store's row for `book`, added on first use as `RemoteFactory` adds a configured remote's: the engine
    /// syncs a remote the store knows.
    func row(for book: AddressBook, kind: Remote.Kind = .carddav, url: String? = nil) throws -> Remote {
        try remote(named: book.name) ?? addRemote(name: book.name, kind: kind, url: url ?? "test://\(book.name)")
    }
}

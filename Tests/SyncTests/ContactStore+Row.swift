import Sync

@testable import ContactStore

extension ContactStore {
    /// The store's row for `book`, added on first use as `RemoteFactory` adds a configured remote's: the engine
    /// syncs a remote the store knows.
    func row(for book: AddressBook, kind: Remote.Kind = .carddav, url: String? = nil) throws -> Remote {
        try remote(named: book.name) ?? addRemote(name: book.name, kind: kind, url: url ?? "test://\(book.name)")
    }

    /// The databases attached to the store's connection besides its own: a run's listing and the cards it brought
    /// while the run lasts, none after it.
    func attachedScratch() throws -> [String] {
        try db.query("SELECT name FROM pragma_database_list WHERE name NOT IN ('main', 'temp')") { try $0.string(0) }
    }
}

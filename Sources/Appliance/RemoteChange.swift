import ContactStore
import Logging

/// What a save from the status page did to a remote that the store must follow: the store keeps each remote's sync
/// state by name. Carried with the reload that reads the saved settings (`SyncWorker.reconfigure`), and applied by
/// the worker before the first pass with them, never between a pass's chunks.
public enum RemoteChange: Sendable, Equatable {
    /// Removed: its sync state goes (the contacts and their history stay), so that adding the book again later
    /// starts afresh rather than taking a contact deleted here meanwhile for a deletion to send.
    case removed(String)
    /// Renamed: its sync state follows, so that the next sync goes on where the last one ended.
    case renamed(from: String, to: String)
}

extension SyncPass {
    /// Applies each change to the store, in order. A failure is logged and costs that change alone: a state left
    /// under an old name is reset when a remote of that name is next added for another place.
    func apply(_ changes: [RemoteChange]) {
        for change in changes {
            do {
                switch change {
                case .removed(let name):
                    guard let row = try store.remote(named: name) else { continue }
                    try store.deleteRemote(id: row.id)
                    logger.notice("Sync state of a removed address book cleared", metadata: ["remote.name": "\(name)"])
                case .renamed(let old, let new):
                    guard let row = try store.remote(named: old) else { continue }
                    // A state left under the new name (a remote of that name removed by hand) is not this book's.
                    if let stale = try store.remote(named: new) { try store.deleteRemote(id: stale.id) }
                    try store.renameRemote(id: row.id, to: new)
                    logger.notice(
                        "Address book renamed", metadata: ["remote.name": "\(new)", "remote.old_name": "\(old)"])
                }
            } catch {
                logger.error(
                    "The store could not follow a change to an address book",
                    metadata: ["remote.change": "\(change)", "store.error": "\(error)"])
            }
        }
    }
}

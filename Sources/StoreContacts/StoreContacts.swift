import ContactStore
import Glibc
import SQLite
import StatusServer
import SystemSupport

/// The status server's ``ContactsBackend`` over the store: what the page and the JSON API show of the household's
/// contacts, and the writes they make.
///
/// MHD's one thread uses it, one request at a time (the contract's promise), so its two connections need no lock:
/// `@unchecked Sendable` rests on that. Reads go through a read-only connection, opened at the first read; the first
/// write opens a writable one and keeps it, so that a box whose page only reads never holds a writer. A store that
/// does not exist yet (the daemon's first start) or has an older schema (a migration on its way) answers 503 in
/// words until it can be read.
///
/// The daemon may put another file in the store's place (a recover from a safety copy, the damaged one moved
/// aside): each connection remembers the file it opened (device and inode), and one whose path now names another
/// file is closed and opened again on the new one.
public final class StoreContacts: ContactsBackend, @unchecked Sendable {
    let path: String
    let now: () -> Int64
    private var readStore: (store: ContactStore, file: FileIdentity?)?
    private var writeStore: (store: ContactStore, file: FileIdentity?)?

    /// Which file a path names: its device and inode.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        /// The file at `path` now; nil when there is none.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    public init(path: String, now: @escaping () -> Int64 = wallClockMillis) {
        self.path = path
        self.now = now
    }

    // MARK: The two connections

    /// The read-only connection, opened now if it is not yet, or again if the store's file was replaced.
    func reader() throws(ContactsError) -> ContactStore {
        // Taken before the opening: a file replaced meanwhile is seen at the next call.
        let file = FileIdentity(path: path)
        if let readStore, readStore.file == file { return readStore.store }
        readStore = nil
        do {
            let store = try ContactStore(readingOnly: path, now: now)
            readStore = (store, file)
            return store
        } catch {
            throw Self.openingError(error, path: path)
        }
    }

    /// The writable connection, opened (and the schema migrated, when it must be) at the first write, then kept
    /// while the store's file is the one it opened.
    func writer() throws(ContactsError) -> ContactStore {
        let file = FileIdentity(path: path)
        if let writeStore, writeStore.file == file { return writeStore.store }
        // Gone between the two renames that put another file in its place: not made anew here.
        if file == nil, writeStore != nil {
            writeStore = nil
            throw ContactsError(status: 503, Self.settingUp)
        }
        writeStore = nil
        do {
            let store = try ContactStore(path: path, now: now)
            writeStore = (store, file)
            return store
        } catch {
            throw Self.openingError(error, path: path)
        }
    }

    /// Runs `body` against the read-only store, its failures as the API answers them.
    func reading<T>(_ body: (ContactStore) throws -> T) throws(ContactsError) -> T {
        let store = try reader()
        do {
            return try body(store)
        } catch {
            throw Self.contactsError(error)
        }
    }

    /// Runs `body` against the writable store, its failures as the API answers them.
    func writing<T>(_ body: (ContactStore) throws -> T) throws(ContactsError) -> T {
        let store = try writer()
        do {
            return try body(store)
        } catch {
            throw Self.contactsError(error)
        }
    }

    static let settingUp = "the store is being set up; try again in a moment"

    /// Why the store could not be opened, as the API answers it: a store that is not there yet, or that waits for
    /// its migration, is a moment's wait (503); a newer schema or a damaged file is the store's failure (500).
    static func openingError(_ error: any Error, path: String) -> ContactsError {
        if let error = error as? ContactStoreError {
            switch error.code {
            case .olderSchema: return ContactsError(status: 503, settingUp)
            default: return ContactsError(status: 500, "cannot open the store: \(error.message)")
            }
        }
        if let error = error as? SQLiteError {
            if error.isBusy { return busy }
            if access(path, F_OK) != 0 || error.mayBeReadOnly {
                return ContactsError(status: 503, settingUp)
            }
            return ContactsError(status: 500, "cannot open the store: \(error.message)")
        }
        return contactsError(error)
    }

    static let busy = ContactsError(status: 503, "the store is busy (a sync is writing to it); try again in a moment")

    /// A failure of a store call, as the API answers it: busy is 503, a missing row 404, a refused argument 400,
    /// anything else the store's failure (500) in its own words.
    static func contactsError(_ error: any Error) -> ContactsError {
        switch error {
        case let error as ContactsError:
            return error
        case let error as SQLiteError:
            return error.isBusy ? busy : ContactsError(status: 500, "the store failed: \(error.message)")
        case let error as ContactStoreError:
            switch error.code {
            case .notFound: return ContactsError(status: 404, error.message)
            case .invalidArgument, .chunkTooLarge: return ContactsError(status: 400, error.message)
            case .olderSchema: return ContactsError(status: 503, settingUp)
            default: return ContactsError(status: 500, "the store failed: \(error.message)")
            }
        default:
            return ContactsError(status: 500, "the store failed: \(error)")
        }
    }

    /// `limit` checked against the contract's 1 to 100.
    static func checkLimit(_ limit: Int) throws(ContactsError) {
        guard (1...ContactStore.chunkLimit).contains(limit) else {
            throw ContactsError(status: 400, "limit \(limit) is outside 1 to \(ContactStore.chunkLimit)")
        }
    }
}

import Glibc
import SQLite
import SystemSupport
import VCard

/// The local contact store: contacts and their tombstones, the history of replaced versions, and the per-remote
/// sync state and journal, in one SQLite database.
///
/// Synchronous and single-owner, like the connection it holds: one thread uses it (a command's, or the daemon's sync
/// worker). Every loop works in chunks of at most `chunkLimit` rows, and every write is one transaction.
public final class ContactStore {
    /// The most records one call reads or writes: one chunk, one transaction.
    public static let chunkLimit = 100
    /// The most card text a chunk of sync work holds, near enough: it ends at the card that reaches this, below
    /// `chunkLimit` when its cards are large. A photo makes a card 10 to 100 times larger, and a chunk of 100 cards
    /// with photos went over the 8 MB budget to upload (`Deploy/bench/sync.sh`, its book of photos).
    public static let chunkBytes = 256 * 1024

    let db: Database
    /// The file, as opened: for messages.
    public var path: String { db.path }
    /// Unix milliseconds; injectable so tests can control time.
    let now: () -> Int64
    /// Whether the clock is set, and the boot's start by it (`ContactStore+Clock.swift`); injectable too.
    let clockStatus: () -> ClockStatus
    /// The clock was set at the last write, with nothing left to put right (`settleClock`).
    var clockSettled = false

    /// Opens (creating if needed) the store at `path` and migrates it to the current schema.
    public init(
        path: String, now: @escaping () -> Int64 = wallClockMillis,
        clock: @escaping () -> ClockStatus = ClockStatus.current
    ) throws {
        self.db = try Self.openWritable(path)
        self.now = now
        self.clockStatus = clock
        do {
            try Schema.migrate(db)
            try rehashIfPending()
            try fillSearchKeysIfPending()
        } catch let error as SQLiteError where error.isDamage {
            throw ContactStoreError(.damaged, "\(path) is damaged: \(error.message)")
        }
    }

    /// The database at `path`, opened to write. SQLite's words for a read-only one name a pragma; the person needs
    /// to know that the file or its folder cannot be written (the store keeps its write-ahead log beside the file).
    private static func openWritable(_ path: String) throws -> Database {
        do {
            return try Database(path: path)
        } catch {
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            guard error.mayBeReadOnly, access(path, F_OK) == 0,
                access(path, W_OK) != 0 || access(folder.isEmpty ? "/" : folder, W_OK) != 0
            else { throw error }
            throw ContactStoreError(
                .readOnly,
                "\(path) is read-only here: this user cannot write the file or the folder it is in, and the store"
                    + " keeps its write-ahead log beside it (\(error.message))")
        }
    }

    /// Opens an existing store only to read it, for the commands that only read (`list`, `show`, `check`,
    /// `export`): a store on a read-only mount or in a read-only file or folder can still be read, and reading
    /// never changes it. Nothing is migrated: a store of an older schema is refused with a message that says how
    /// to migrate it, since this code's queries need the current one.
    public init(readingOnly path: String, now: @escaping () -> Int64 = wallClockMillis) throws {
        self.db = try Database(readingOnly: path)
        self.now = now
        self.clockStatus = ClockStatus.current
        let version = try db.userVersion
        if version < Schema.currentVersion {
            throw ContactStoreError(
                .olderSchema,
                "database \(path) has schema version \(version), older than this ContactBox's \(Schema.currentVersion);"
                    + " it is opened read-only here, so it is not migrated. Run a command that writes to it (import,"
                    + " sync) or the daemon once, where it can be written")
        }
        try Schema.checkNotNewer(db)
    }

    /// Whether this store was opened only to read (`init(readingOnly:)`).
    public var isReadOnly: Bool { db.readOnlyMode != nil }

    /// The schema version this code writes.
    public static var schemaVersion: Int { Int(Schema.currentVersion) }

    /// Runs `body` in one transaction, so that several store calls (one sync chunk) commit or roll back together:
    /// the store's own calls are parts of it, and an error in any of them rolls back all.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try db.wholeTransaction(.immediate, body)
    }

    /// Runs `body`, which only reads, against one snapshot of the store: many lookups in a row (planning a sync
    /// chunk) then open and close SQLite's read transaction once, not once each (two `fcntl` locks a lookup).
    public func reading<T>(_ body: () throws -> T) throws -> T {
        try db.transaction(.deferred, body)
    }

    /// The last change sequence number handed out (0 for a new store).
    public func currentChangeSeq() throws -> Int64 {
        try db.scalarInt64("SELECT value FROM sequence WHERE id = 1") ?? 0
    }

    // MARK: Shared helpers

    /// Takes the next change sequence number. Must run inside the transaction that uses it, so that a rollback
    /// gives the number back together with the change.
    func nextChangeSeq() throws -> Int64 {
        // Not `RETURNING`: SQLite gathers what it returns in a temporary table, a pager of its own for each call.
        try db.run("UPDATE sequence SET value = value + 1 WHERE id = 1")
        guard db.changes == 1, let value = try db.scalarInt64("SELECT value FROM sequence WHERE id = 1") else {
            throw ContactStoreError(.corruptRow, "the change sequence row is missing from \(db.path)")
        }
        return value
    }

    static let contactColumns = contactColumns(of: "contacts")
    /// The number of `contactColumns`: a query's own columns follow them.
    static let contactColumnCount = 10

    /// The columns `storedContact` reads, of `table` (contacts, or its alias in a join).
    static func contactColumns(of table: String) -> String {
        [
            "id", "uid", smallText(of: table), "hash", "display_name", "created_at", "changed_at", "change_seq",
            "deleted",
        ]
        .map { $0.hasPrefix("CASE") ? $0 : "\(table).\($0)" }.joined(separator: ", ") + ", \(table).text_id"
    }

    func storedContact(_ row: Row) throws -> StoredContact {
        try storedContact(row, readingText: true)
    }

    /// The contact of a row of `contactColumns`; with `readingText` false, a large text is left unread (a writer's
    /// view: it copies or compares it at its place).
    func storedContact(_ row: Row, readingText: Bool) throws -> StoredContact {
        let id = try row.int64(0)
        let place = TextPlace(table: "contacts", rowID: id, textID: try row.optionalInt64(9))
        let (text, largeText) = try rowText(row, column: 2, place: place, reading: readingText)
        var contact = StoredContact(
            id: id, uid: try row.string(1), text: text, hash: try row.string(3), displayName: try row.string(4),
            createdAt: try row.int64(5), changedAt: try row.int64(6), changeSeq: try row.int64(7),
            deleted: try row.bool(8))
        contact.largeText = largeText
        return contact
    }

    static func checkLimit(_ limit: Int) throws {
        guard (1...chunkLimit).contains(limit) else {
            throw ContactStoreError(.invalidArgument, "limit \(limit) is outside 1...\(chunkLimit)")
        }
    }
}

@available(*, unavailable)
extension ContactStore: Sendable {}

import CSQLite
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection: owns the `sqlite3` handle, opened in `init` and closed in `deinit`.
///
/// Opened with `SQLITE_OPEN_NOMUTEX`, so the connection has exactly one owner and must not cross threads; an
/// owner keeps it on one thread of its own (the daemon's sync worker; Docs/contributing.md, rule 6).
public final class Database {
    let handle: OpaquePointer
    public let path: String
    /// The journal mode SQLite actually chose (`wal` for a file; `memory` for `:memory:`).
    public private(set) var journalMode = ""
    /// How a read-only connection was opened (`ReadOnlyMode`); nil for a connection that writes.
    public let readOnlyMode: ReadOnlyMode?

    private var statements: [String: Statement] = [:]
    /// The statements of `statements` by where their SQL's bytes lie (a few bits of the address): most SQL is a
    /// literal, always at one address, so its statement is found without hashing its text, which took a hundredth of
    /// a download's instructions. A statement found here is only taken for the same SQL.
    private var byAddress = [Statement?](repeating: nil, count: 32)
    /// A handful of statements serve the store; the limit only stops a caller that builds SQL dynamically from
    /// growing the cache without bound.
    private static let statementCacheLimit = 64
    var savepointCounter = 0
    /// Inside `wholeTransaction`: nested transactions are part of it, and the first that failed fails it.
    var nestsWhole = false
    var failedPart: (any Error)?

    /// Opens (creating if needed) the database at `path` and configures the connection for the appliance.
    /// `busyTimeout`: how long a statement waits for another connection's lock before it fails as busy.
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        self.handle = try Self.openForWriting(path)
        self.path = path
        self.readOnlyMode = nil
        // From here on a throw runs deinit, which closes the handle.
        try configure(busyTimeout: busyTimeout)
    }

    /// A connection to a new file that a copy (`copy(to:)`) writes: no journal and no syncs of its own (a copy
    /// that ends incomplete is thrown away; the file is synced once, at the end), and a small cache.
    init(copyDestination path: String) throws(SQLiteError) {
        self.handle = try Self.openForWriting(path)
        self.path = path
        self.readOnlyMode = nil
        try check(sqlite3_extended_result_codes(handle, 1), sql: nil)
        try execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-256")
    }

    private static func openForWriting(_ path: String) throws(SQLiteError) -> OpaquePointer {
        Self.configureLibrary
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            // > Whether or not an error occurs when it is opened, resources associated with the database connection
            // > handle should be released by passing it to sqlite3_close() when it is no longer required.
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: code, message: "\(message) (opening \(path))")
        }
        return connection
    }

    /// How a connection that only reads opened its file.
    public enum ReadOnlyMode: String, Sendable {
        /// `mode=ro`: SQLite's usual locking, so a writer (the daemon) may go on meanwhile. A WAL database needs its
        /// `-shm` file for that, which SQLite creates next to the database if it is missing.
        case shared = "mode=ro"
        /// `immutable=1`: no locks and no `-shm`, for a store on a read-only mount or in a folder this user cannot
        /// write, where SQLite could not create the `-shm`. Only used when there is no `-wal` file with commits
        /// in it (the last writer closed cleanly): then nobody can be changing the file, and it holds every commit.
        case immutable = "immutable=1"
    }

    /// Opens an existing database only to read it (`SQLITE_OPEN_READONLY`): no journal mode is set, nothing is
    /// created, and every write fails. Tries `ReadOnlyMode.shared` first, and `immutable` where that cannot work.
    public init(readingOnly path: String, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        Self.configureLibrary
        var opened: (OpaquePointer, ReadOnlyMode)?
        var lastError = SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open \(path)")
        for mode in [ReadOnlyMode.shared, .immutable] {
            if mode == .immutable, !Self.isSafelyImmutable(path) { break }
            var connection: OpaquePointer?
            let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
            var code = sqlite3_open_v2(Self.fileURI(path, mode), &connection, flags, nil)
            // A WAL database shows whether it can be read only at the first read.
            if code == SQLITE_OK, let connection {
                code = sqlite3_exec(connection, "SELECT count(*) FROM sqlite_schema", nil, nil, nil)
            }
            guard code == SQLITE_OK, let connection else {
                let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
                sqlite3_close_v2(connection)
                lastError = SQLiteError(code: code, message: "\(message) (opening \(path) read-only, \(mode.rawValue))")
                continue
            }
            opened = (connection, mode)
            break
        }
        guard let (connection, mode) = opened else { throw lastError }
        self.handle = connection
        self.path = path
        self.readOnlyMode = mode
        try check(sqlite3_extended_result_codes(handle, 1), sql: nil)
        try setBusyTimeout(busyTimeout)
        journalMode = try scalarString("PRAGMA journal_mode") ?? ""
        try execute("PRAGMA cache_size=-512")
    }

    /// `file:` URI for `path` (RFC 8089, percent-encoded as SQLite's URI rules ask) with one query parameter.
    static func fileURI(_ path: String, _ mode: ReadOnlyMode) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                encoded += (byte < 0x10 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return "file:\(encoded)?\(mode.rawValue)"
    }

    /// Whether reading `path` as immutable reads every commit and races no writer: its folder cannot be written
    /// (a read-only mount, or permissions), so no writer can be at work, and no `-wal` file holds commits.
    static func isSafelyImmutable(_ path: String) -> Bool {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var info = stat()
        let walHoldsCommits = stat(path + "-wal", &info) == 0 && info.st_size > 0
        return !walHoldsCommits && access(folder, W_OK) != 0
    }

    /// SQLite's process-wide settings, made before the first connection opens (sqlite3_config works only before
    /// the library initialises), so that no allocation of SQLite's is a block of glibc's mmap threshold or more
    /// (each such block is an mmap, its page faults and an munmap: Docs/measurements/speed.md, "SQLite's mmaps").
    /// A statement journal (a statement's undo inside a transaction) is kept in memory in chunks of 32 KiB and
    /// goes to a temporary file past that: a few pages for the statements of this store. A page cache takes its
    /// pages as it needs them, not 20 at once: a temporary table (the `IN` list of a `CHECK`, checked on every
    /// insert into history) has a cache of its own for the length of one statement.
    private static let configureLibrary: Void = {
        _ = csqlite_config_statement_journal_spill(32 << 10)
        _ = csqlite_config_page_cache_first_pages(0)
    }()

    deinit {
        // Finalize our statements first, so that close does not leave a zombie connection behind.
        statements.removeAll()
        byAddress.removeAll()
        sqlite3_close_v2(handle)
    }

    /// sqlite3_busy_timeout takes whole milliseconds as an `int`; zero or less turns the waiting off.
    private func setBusyTimeout(_ timeout: Duration) throws(SQLiteError) {
        try check(sqlite3_busy_timeout(handle, Int32(clamping: timeout.wholeMilliseconds)), sql: nil)
    }

    private func configure(busyTimeout: Duration) throws(SQLiteError) {
        // Extended codes tell a UNIQUE violation (2067) from a NOT NULL one (1299); the primary code stays in the
        // low byte (`SQLiteError.primaryCode`).
        try check(sqlite3_extended_result_codes(handle, 1), sql: nil)
        // Another process (the CLI while the daemon runs) may hold the write lock for a moment.
        try setBusyTimeout(busyTimeout)
        // WAL: readers never block the writer, and a crash never leaves a half-written page.
        journalMode = try scalarString("PRAGMA journal_mode=WAL") ?? ""
        if journalMode == "wal" {
            // > WAL mode is safe from corruption with synchronous=NORMAL [...] WAL mode is always consistent with
            // > synchronous=NORMAL, but WAL mode does lose durability. A transaction committed in WAL mode with
            // > synchronous=NORMAL might roll back following a power loss or system crash. Transactions are durable
            // > across application crashes regardless of the synchronous setting or journal mode.
            // (https://sqlite.org/pragma.html#pragma_synchronous). Losing the last commit on power loss is fine:
            // sync is idempotent and the next run redoes it; a consistent store is what matters.
            try execute("PRAGMA synchronous=NORMAL")
        } else {
            // Outside WAL (an in-memory database, a file system without shared memory) NORMAL is not corruption-
            // safe on power loss, so fall back to the safe setting.
            try execute("PRAGMA synchronous=FULL")
        }
        // > Foreign key constraints are disabled by default [...] so must be enabled separately for each database
        // > connection.
        try execute("PRAGMA foreign_keys=ON")
        // A negative size is in KiB: 512 KiB of page cache, because the whole appliance lives in about 20 MB.
        try execute("PRAGMA cache_size=-512")
        // Truncate the WAL file back to 4 MiB after a checkpoint, so one big import does not keep its space forever.
        try execute("PRAGMA journal_size_limit=4194304")
    }

    // MARK: Running SQL

    /// Runs a script of one or more statements without arguments (schema, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            throw SQLiteError(code: code, message: message, sql: sql)
        }
    }

    /// Runs one statement with arguments, ignoring any rows it returns.
    public func run(_ sql: String, _ arguments: (any SQLBindable)?...) throws(SQLiteError) {
        try run(sql, arguments: arguments)
    }

    public func run(_ sql: String, arguments: [(any SQLBindable)?]) throws(SQLiteError) {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        while try statement.step() {}
    }

    /// Calls `body` for each row, one at a time: nothing is collected.
    public func forEachRow(_ sql: String, _ arguments: (any SQLBindable)?..., body: (Row) throws -> Void) throws {
        try forEachRow(sql, arguments: arguments, body: body)
    }

    public func forEachRow(_ sql: String, arguments: [(any SQLBindable)?], body: (Row) throws -> Void) throws {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        while try statement.step() {
            try body(Row(statement: statement))
        }
    }

    /// Maps every row with `map`; bound the result with a LIMIT.
    public func query<T>(_ sql: String, _ arguments: (any SQLBindable)?..., map: (Row) throws -> T) throws -> [T] {
        try query(sql, arguments: arguments, map: map)
    }

    public func query<T>(_ sql: String, arguments: [(any SQLBindable)?], map: (Row) throws -> T) throws -> [T] {
        try query(sql, arguments: arguments, map: map, isLast: { _ in false })
    }

    /// Maps rows in order until `isLast` says the one just mapped ends the result: a page bounded by its size as well
    /// as by its LIMIT.
    public func query<T>(
        _ sql: String, arguments: [(any SQLBindable)?], map: (Row) throws -> T, isLast: (T) -> Bool
    ) throws -> [T] {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        var results: [T] = []
        while try statement.step() {
            let result = try map(Row(statement: statement))
            results.append(result)
            if isLast(result) { break }
        }
        return results
    }

    /// Maps the first row, or returns nil when there is none.
    public func queryFirst<T>(_ sql: String, _ arguments: (any SQLBindable)?..., map: (Row) throws -> T) throws -> T? {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        return try statement.step() ? map(Row(statement: statement)) : nil
    }

    /// The first column of the first row as an integer; nil when there is no row or the value is NULL.
    public func scalarInt64(_ sql: String, _ arguments: (any SQLBindable)?...) throws(SQLiteError) -> Int64? {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        return try statement.step() ? Row(statement: statement).optionalInt64(0) : nil
    }

    /// The first column of the first row as text; nil when there is no row or the value is NULL.
    public func scalarString(_ sql: String, _ arguments: (any SQLBindable)?...) throws(SQLiteError) -> String? {
        let statement = try prepared(sql, arguments)
        defer { release(statement) }
        return try statement.step() ? Row(statement: statement).optionalString(0) : nil
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// `PRAGMA user_version`: the schema version the application keeps in the database header.
    public var userVersion: Int32 {
        get throws(SQLiteError) {
            Int32(truncatingIfNeeded: try scalarInt64("PRAGMA user_version") ?? 0)
        }
    }

    public func setUserVersion(_ version: Int32) throws(SQLiteError) {
        // A pragma takes no bound parameters; an Int32 formats to digits only, so this cannot inject anything.
        try execute("PRAGMA user_version = \(version)")
    }

    // MARK: Statements

    /// Takes the cached statement for `sql` (or prepares one) and binds the arguments. Every caller pairs it with
    /// `release`, which resets the statement so it holds no lock or snapshot while it waits in the cache.
    private func prepared(_ sql: String, _ arguments: [(any SQLBindable)?]) throws(SQLiteError) -> Statement {
        let statement = try cachedStatement(sql)
        statement.isInUse = true
        do {
            try statement.bind(arguments)
        } catch {
            release(statement)
            throw error
        }
        return statement
    }

    private func release(_ statement: Statement) {
        statement.reset()
        statement.isInUse = false
    }

    private func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        let slot = sql.utf8.withContiguousStorageIfAvailable { Int(bitPattern: $0.baseAddress) >> 4 & 31 }
        if let slot, let known = byAddress[slot], known.sql == sql, !known.isInUse {
            return known
        }
        if let cached = statements[sql] {
            if !cached.isInUse {
                if let slot { byAddress[slot] = cached }
                return cached
            }
            // The same SQL is already stepping further up the stack: use a private statement this time.
            return try Statement(connection: handle, sql: sql)
        }
        let statement = try Statement(connection: handle, sql: sql)
        if statements.count >= Self.statementCacheLimit {
            // Statements in use stay alive through their callers' references.
            statements.removeAll(keepingCapacity: true)
            for index in byAddress.indices { byAddress[index] = nil }
        }
        statements[sql] = statement
        if let slot { byAddress[slot] = statement }
        return statement
    }

    /// Number of prepared statements in the cache (for tests and diagnostics).
    public var cachedStatementCount: Int { statements.count }

    func check(_ code: Int32, sql: String?) throws(SQLiteError) {
        if code != SQLITE_OK {
            try failure(connection: handle, code: code, sql: sql)
        }
    }
}

@available(*, unavailable)
extension Database: Sendable {}

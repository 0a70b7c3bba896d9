import CSQLite

/// One prepared statement: owns its `sqlite3_stmt`, prepared in `init` and finalized in `deinit`.
///
/// Statements are internal: callers go through `Database.run`, `query` and friends, which take them from the
/// database's cache, bind, step, and reset them when done so that no statement keeps a read snapshot open.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// Set while a caller is stepping through this statement, so that a nested use of the same SQL (for example a
    /// query inside another query's row closure) prepares its own statement instead of resetting this one.
    var isInUse = false

    init(connection: OpaquePointer, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        var remainder = ""
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, text, -1, &statement, &tail)
            if code == SQLITE_OK, let tail {
                remainder = String(cString: tail)
            }
            return code
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(statement)
            try failure(connection: connection, code: code, sql: sql)
        }
        guard let statement else {
            // > If the input text contains no SQL (if the input is an empty string or a comment) then *ppStmt is set
            // > to NULL.
            throw .misuse("no SQL statement to prepare", sql: sql)
        }
        // `prepare` compiles only the first statement: silently ignoring the rest would lose writes.
        guard remainder.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            sqlite3_finalize(statement)
            throw .misuse("several statements in one; use Database.execute for scripts", sql: sql)
        }
        self.handle = statement
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds the arguments in order to the `?` placeholders; their number must match exactly.
    func bind(_ arguments: [(any SQLBindable)?]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw .misuse("\(arguments.count) arguments for \(expected) placeholders", sql: sql)
        }
        for (offset, argument) in arguments.enumerated() {
            // Placeholders are numbered from 1.
            try bind(argument?.sqlValue ?? .null, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            // The explicit byte length keeps a NUL inside the text; SQLITE_TRANSIENT makes SQLite copy the bytes,
            // which only live for the duration of the closure.
            code = text.withCString { pointer in
                sqlite3_bind_text64(
                    handle, index, pointer, sqlite3_uint64(text.utf8.count), csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .utf8Text(let bytes) where bytes.isEmpty:
            // An empty array may have no base address, and a NULL pointer would bind NULL instead of empty text.
            code = sqlite3_bind_text64(handle, index, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
        case .utf8Text(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_text64(
                    handle, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                    sqlite3_uint64(buffer.count),
                    csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        case .blob(let bytes) where bytes.isEmpty:
            // An empty array may have no base address, and a NULL pointer would bind NULL instead of an empty blob.
            code = sqlite3_bind_zeroblob(handle, index, 0)
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    handle, index, buffer.baseAddress, sqlite3_uint64(buffer.count), csqlite_transient())
            }
        }
        try check(code)
    }

    /// Advances to the next row: `true` when a row is available, `false` when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            try failure(connection: sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }

    /// Makes the statement ready for its next use and releases what the last one held (a read snapshot, a lock).
    func reset() {
        // > If the most recent call to sqlite3_step(S) for the prepared statement S indicated an error, then
        // > sqlite3_reset(S) returns an appropriate error code.
        // That error was already thrown by `step`, so it is not reported twice.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        if code != SQLITE_OK {
            try failure(connection: sqlite3_db_handle(handle), code: code, sql: sql)
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}

/// Turns a failed result code into the one error this module throws, with SQLite's message for the connection.
func failure(connection: OpaquePointer?, code: Int32, sql: String?) throws(SQLiteError) -> Never {
    let message: String
    if let connection, sqlite3_errcode(connection) != SQLITE_OK {
        message = String(cString: sqlite3_errmsg(connection))
    } else {
        // Some failures (a wrapper-side misuse, an out-of-memory open) leave no message on the connection.
        message = String(cString: sqlite3_errstr(code))
    }
    throw SQLiteError(code: code, message: message, sql: sql)
}

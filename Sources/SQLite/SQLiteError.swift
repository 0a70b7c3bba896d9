import CSQLite

/// The one error the SQLite module throws: the result code, SQLite's own message, and the SQL that failed.
///
/// The SQL is the statement text with its `?` placeholders, never the bound values, so an error can be logged
/// without leaking a contact.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (for example 2067, `SQLITE_CONSTRAINT_UNIQUE`).
    public var code: Int32
    /// What SQLite said (`sqlite3_errmsg`), or what this wrapper found wrong.
    public var message: String
    /// The SQL that failed, if any.
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (for example 19, `SQLITE_CONSTRAINT`): extended codes keep it in the low byte.
    public var primaryCode: Int32 { code & 0xFF }

    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// The database, or the folder its journal goes in, could not be written or opened to write (`SQLITE_READONLY`,
    /// `SQLITE_CANTOPEN` and their kinds): the caller tells which by the file system.
    public var mayBeReadOnly: Bool { primaryCode == SQLITE_READONLY || primaryCode == SQLITE_CANTOPEN }
    /// A write the disk refused or failed (`SQLITE_IOERR`, `SQLITE_READONLY` and their kinds): a file system the kernel
    /// turned read-only after an I/O error fails writes so, even where the mount still says read-write.
    public var isWriteFailure: Bool { primaryCode == SQLITE_IOERR || primaryCode == SQLITE_READONLY }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    /// The file is damaged (`SQLITE_CORRUPT`) or is no database (`SQLITE_NOTADB`).
    public var isDamage: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var text = "SQLite error \(code) (\(name)): \(message)"
        if let sql {
            text += " [SQL: \(sql)]"
        }
        return text
    }
}

extension SQLiteError {
    /// A misuse of this wrapper (as opposed to a failure inside SQLite), reported with `SQLITE_MISUSE`.
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql)
    }
}

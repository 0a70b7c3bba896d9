import CSQLite

/// The current row of a query, read by column index (0-based, in the order of the SELECT list).
///
/// A row is a view of a statement that is stepping: it is only valid inside the closure it is handed to, so copy
/// the values out rather than keeping the row.
public struct Row {
    private let statement: Statement

    init(statement: Statement) {
        self.statement = statement
    }

    public var columnCount: Int { Int(sqlite3_column_count(statement.handle)) }

    public func columnName(_ index: Int) throws(SQLiteError) -> String {
        let column = try checked(index)
        guard let name = sqlite3_column_name(statement.handle, column) else {
            throw SQLiteError(code: SQLITE_NOMEM, message: "no name for column \(index)", sql: statement.sql)
        }
        return String(cString: name)
    }

    public func isNull(_ index: Int) throws(SQLiteError) -> Bool {
        sqlite3_column_type(statement.handle, try checked(index)) == SQLITE_NULL
    }

    /// The column as stored, in its own storage class.
    public func value(_ index: Int) throws(SQLiteError) -> SQLValue {
        let column = try checked(index)
        switch sqlite3_column_type(statement.handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement.handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement.handle, column))
        case SQLITE_TEXT:
            return .text(try text(column))
        case SQLITE_BLOB:
            return .blob(blob(column))
        default:
            return .null
        }
    }

    // MARK: Typed accessors. The non-optional ones throw on NULL rather than invent a value.

    public func int64(_ index: Int) throws(SQLiteError) -> Int64 {
        sqlite3_column_int64(statement.handle, try nonNull(index))
    }

    public func optionalInt64(_ index: Int) throws(SQLiteError) -> Int64? {
        try isNull(index) ? nil : int64(index)
    }

    public func int(_ index: Int) throws(SQLiteError) -> Int {
        let value = try int64(index)
        // Int is 32 bits on a 32-bit ARM board; a value that does not fit is an error, not a trap.
        guard let converted = Int(exactly: value) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "column \(index) value \(value) does not fit Int", sql: statement.sql)
        }
        return converted
    }

    public func optionalInt(_ index: Int) throws(SQLiteError) -> Int? {
        try isNull(index) ? nil : int(index)
    }

    public func double(_ index: Int) throws(SQLiteError) -> Double {
        sqlite3_column_double(statement.handle, try nonNull(index))
    }

    public func optionalDouble(_ index: Int) throws(SQLiteError) -> Double? {
        try isNull(index) ? nil : double(index)
    }

    public func bool(_ index: Int) throws(SQLiteError) -> Bool {
        try int64(index) != 0
    }

    public func string(_ index: Int) throws(SQLiteError) -> String {
        try text(nonNull(index))
    }

    public func optionalString(_ index: Int) throws(SQLiteError) -> String? {
        try isNull(index) ? nil : string(index)
    }

    public func blob(_ index: Int) throws(SQLiteError) -> [UInt8] {
        blob(try nonNull(index))
    }

    public func optionalBlob(_ index: Int) throws(SQLiteError) -> [UInt8]? {
        try isNull(index) ? nil : blob(index)
    }

    // MARK: Helpers

    private func checked(_ index: Int) throws(SQLiteError) -> Int32 {
        // > If the SQL statement does not currently point to a valid row, or if the column index is out of range,
        // > the result is undefined.
        guard index >= 0, index < columnCount else {
            throw .misuse("column \(index) out of range 0..<\(columnCount)", sql: statement.sql)
        }
        return Int32(index)
    }

    private func nonNull(_ index: Int) throws(SQLiteError) -> Int32 {
        let column = try checked(index)
        guard sqlite3_column_type(statement.handle, column) != SQLITE_NULL else {
            throw SQLiteError(code: SQLITE_MISMATCH, message: "column \(index) is NULL", sql: statement.sql)
        }
        return column
    }

    private func text(_ column: Int32) throws(SQLiteError) -> String {
        // > call sqlite3_column_text() first to force the result into the desired format, then invoke
        // > sqlite3_column_bytes() to find the size of the result.
        // Text, even empty, is never a NULL pointer unless SQLite ran out of memory converting it.
        guard let bytes = sqlite3_column_text(statement.handle, column) else {
            throw SQLiteError(code: SQLITE_NOMEM, message: "out of memory reading column \(column)", sql: statement.sql)
        }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func blob(_ column: Int32) -> [UInt8] {
        // A zero-length blob comes back as a NULL pointer.
        guard let bytes = sqlite3_column_blob(statement.handle, column) else {
            return []
        }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

@available(*, unavailable)
extension Row: Sendable {}

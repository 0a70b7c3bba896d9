import CSQLite

/// One open incremental-blob handle (`sqlite3_blob_open`): owns it, opened in `init` and closed in `deinit`.
///
/// Reads and writes go straight to the value's pages, a piece at a time, where a statement would hold the whole
/// value in SQLite's heap (to build or to read a record). A handle cannot change a value's length: a value to be
/// written is first inserted as a `zeroblob` of its length.
final class Blob {
    let handle: OpaquePointer
    private let connection: OpaquePointer
    /// The value's length in bytes.
    let count: Int

    init(
        connection: OpaquePointer, database: String, table: String, column: String, rowID: Int64, writable: Bool
    ) throws(SQLiteError) {
        var blob: OpaquePointer?
        let code = sqlite3_blob_open(connection, database, table, column, rowID, writable ? 1 : 0, &blob)
        guard code == SQLITE_OK, let blob else {
            // > Even if an error occurs, ... *ppBlob is set to NULL; calling sqlite3_blob_close() on it is harmless.
            sqlite3_blob_close(blob)
            try failure(connection: connection, code: code, sql: "blob \(table).\(column) of row \(rowID)")
        }
        self.handle = blob
        self.connection = connection
        self.count = Int(sqlite3_blob_bytes(blob))
    }

    deinit {
        // Its result repeats an error a read or write already threw.
        sqlite3_blob_close(handle)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SQLiteError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        try check(sqlite3_blob_read(handle, base, try int32(buffer.count), try int32(offset)))
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SQLiteError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard offset + bytes.count <= count else {
            throw .misuse("\(offset + bytes.count) bytes written into a value of \(count)")
        }
        try check(sqlite3_blob_write(handle, base, try int32(bytes.count), try int32(offset)))
    }

    /// SQLite's blob calls take `int` offsets and lengths (values are at most SQLITE_MAX_LENGTH, 1 GB by default).
    private func int32(_ value: Int) throws(SQLiteError) -> Int32 {
        guard let converted = Int32(exactly: value) else {
            throw .misuse("blob offset or length \(value) does not fit an int")
        }
        return converted
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        if code != SQLITE_OK {
            try failure(connection: connection, code: code, sql: nil)
        }
    }
}

@available(*, unavailable)
extension Blob: Sendable {}

// Incremental blob I/O: a value of megabytes (a card with a photo) written, read and copied a piece at a time,
// never whole in SQLite's heap or ours. A statement that writes a value builds the whole record in SQLite's heap
// (OP_MakeRecord), and one that reads it copies it whole (sqlite3_column_blob); a blob handle reads and writes the
// value's own pages. A value is located by its table, column and rowid; it must be TEXT or BLOB, and a value to be
// written is first inserted or updated as `zeroblob(length)` (cheap only as a record's last column: SQLite makes
// any other zeroblob whole when it builds the record).
extension Database {
    /// The size of the pieces the blob calls read and write.
    public static let blobPieceSize = 64 * 1024

    /// The length in bytes of the TEXT or BLOB value at `table.column` of row `rowID`, without reading it.
    public func blobLength(table: String, column: String, rowID: Int64) throws(SQLiteError) -> Int {
        try openBlob(table: table, column: column, rowID: rowID, writable: false).count
    }

    /// Writes the value at `table.column` of row `rowID` (a zeroblob of its final length) from the pieces `source`
    /// hands to the function it is given, in order. Throws when the pieces do not fill the value exactly.
    public func writeBlob(
        table: String, column: String, rowID: Int64,
        from source: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let blob = try openBlob(table: table, column: column, rowID: rowID, writable: true)
        var offset = 0
        try source { piece in
            try blob.write(piece, at: offset)
            offset += piece.count
        }
        guard offset == blob.count else {
            throw SQLiteError.misuse("\(offset) bytes written into \(table).\(column) of \(blob.count) bytes")
        }
    }

    /// Hands the value at `table.column` of row `rowID` to `sink` in pieces of at most `blobPieceSize`, in order.
    public func readBlob(
        table: String, column: String, rowID: Int64, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let blob = try openBlob(table: table, column: column, rowID: rowID, writable: false)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(blob.count, Self.blobPieceSize), alignment: 1)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < blob.count {
            let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, blob.count - offset)])
            try blob.read(into: piece, at: offset)
            try sink(UnsafeRawBufferPointer(piece))
            offset += piece.count
        }
    }

    /// Copies the value at `table.column` of row `rowID` into `target` (table, column, rowid), which must hold a
    /// zeroblob of the same length: `INSERT ... SELECT` would hold the value whole.
    public func copyBlob(
        table: String, column: String, rowID: Int64, to target: (table: String, column: String, rowID: Int64)
    ) throws {
        let destination = try openBlob(table: target.table, column: target.column, rowID: target.rowID, writable: true)
        var offset = 0
        try readBlob(table: table, column: column, rowID: rowID) { piece in
            try destination.write(piece, at: offset)
            offset += piece.count
        }
        guard offset == destination.count else {
            throw SQLiteError.misuse(
                "\(offset) bytes copied into \(target.table).\(target.column) of \(destination.count) bytes")
        }
    }

    private func openBlob(table: String, column: String, rowID: Int64, writable: Bool) throws(SQLiteError) -> Blob {
        try Blob(connection: handle, database: "main", table: table, column: column, rowID: rowID, writable: writable)
    }
}

import CSQLite
import SQLite
import TestSupport
import Testing

@Suite("Incremental blob I/O")
struct BlobTests {
    let directory: TemporaryDirectory
    let db: Database
    /// 200 KB of varied bytes: more than three pieces, the last one short.
    let value: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("test.sqlite"))
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, data BLOB NOT NULL)")
    }

    private func insertZeroBlob(_ length: Int) throws -> Int64 {
        try db.run("INSERT INTO item (name, data) VALUES ('x', zeroblob(?))", length)
        return db.lastInsertRowID
    }

    private func read(_ rowID: Int64) throws -> (bytes: [UInt8], pieces: [Int]) {
        var bytes: [UInt8] = []
        var pieces: [Int] = []
        try db.readBlob(table: "item", column: "data", rowID: rowID) { piece in
            bytes.append(contentsOf: piece)
            pieces.append(piece.count)
        }
        return (bytes, pieces)
    }

    @Test("a value written in pieces into a zeroblob reads back the same, in pieces of at most 64 KiB")
    func writeThenRead() throws {
        let id = try insertZeroBlob(value.count)
        try db.writeBlob(table: "item", column: "data", rowID: id) { write in
            try value.withUnsafeBytes { all in
                for start in stride(from: 0, to: all.count, by: 10_000) {
                    try write(UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + 10_000)]))
                }
            }
        }
        #expect(try db.blobLength(table: "item", column: "data", rowID: id) == value.count)
        #expect(try db.scalarString("SELECT typeof(data) FROM item WHERE id = ?", id) == "blob")
        let (bytes, pieces) = try read(id)
        #expect(bytes == value)
        #expect(pieces == [65_536, 65_536, 65_536, 3_392])
        #expect(try db.queryFirst("SELECT data FROM item WHERE id = ?", id) { try $0.blob(0) } == value)
    }

    @Test("a copy into a zeroblob of the same length holds the same bytes")
    func copy() throws {
        let source = try insertZeroBlob(value.count)
        try db.writeBlob(table: "item", column: "data", rowID: source) { write in
            try value.withUnsafeBytes { try write($0) }
        }
        try db.execute("CREATE TABLE other (id INTEGER PRIMARY KEY, copy BLOB NOT NULL)")
        try db.run("INSERT INTO other (id, copy) VALUES (7, zeroblob(?))", value.count)
        try db.copyBlob(table: "item", column: "data", rowID: source, to: ("other", "copy", 7))
        #expect(try db.queryFirst("SELECT copy FROM other WHERE id = 7") { try $0.blob(0) } == value)
    }

    @Test("a TEXT value reads in pieces as its UTF-8 bytes")
    func readsText() throws {
        try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.run("INSERT INTO note (id, body) VALUES (1, ?)", "héllo")
        var bytes: [UInt8] = []
        try db.readBlob(table: "note", column: "body", rowID: 1) { bytes.append(contentsOf: $0) }
        #expect(bytes == Array("héllo".utf8))
    }

    @Test("pieces that do not fill the value, or overrun it, fail; a missing row fails with SQLite's error")
    func failures() throws {
        let id = try insertZeroBlob(10)
        let short = [UInt8](repeating: 1, count: 4)
        #expect(throws: SQLiteError.self) {
            try db.writeBlob(table: "item", column: "data", rowID: id) { write in try short.withUnsafeBytes(write) }
        }
        let long = [UInt8](repeating: 1, count: 11)
        #expect(throws: SQLiteError.self) {
            try db.writeBlob(table: "item", column: "data", rowID: id) { write in try long.withUnsafeBytes(write) }
        }
        let error = try #require(throws: SQLiteError.self) {
            try db.readBlob(table: "item", column: "data", rowID: 99) { _ in }
        }
        #expect(error.primaryCode == SQLITE_ERROR)
        let mismatch = try insertZeroBlob(11)
        #expect(throws: SQLiteError.self) {
            try db.copyBlob(table: "item", column: "data", rowID: id, to: ("item", "data", mismatch))
        }
    }
}

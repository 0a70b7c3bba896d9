import CSQLite
import SQLite
import TestSupport
import Testing

@Suite("Database")
struct DatabaseTests {
    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("test.sqlite"))
        try db.execute(
            """
            CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE, size INTEGER, ratio REAL, flag INTEGER,
                               data BLOB);
            """)
    }

    @Test("opening sets WAL, synchronous NORMAL, foreign keys, a busy timeout and a small page cache")
    func pragmas() throws {
        #expect(db.journalMode == "wal")
        #expect(try db.scalarString("PRAGMA journal_mode") == "wal")
        #expect(try db.scalarInt64("PRAGMA synchronous") == 1)
        #expect(try db.scalarInt64("PRAGMA foreign_keys") == 1)
        #expect(try db.scalarInt64("PRAGMA busy_timeout") == 5_000)
        #expect(try db.scalarInt64("PRAGMA cache_size") == -512)
    }

    @Test("every bindable type goes in and comes out unchanged")
    func bindingsRoundTrip() throws {
        let name = "Zoë \u{0}after NUL"
        let bytes: [UInt8] = [0, 1, 254, 255]
        try db.run(
            "INSERT INTO item (name, size, ratio, flag, data) VALUES (?, ?, ?, ?, ?)", name, Int64(1) << 40, 0.25,
            true, bytes)
        try db.run(
            "INSERT INTO item (name, size, ratio, flag, data) VALUES (?, ?, ?, ?, ?)", "small", 7, -1.5, false,
            [UInt8]())
        let rows = try db.query("SELECT name, size, ratio, flag, data FROM item ORDER BY id") { row in
            (try row.string(0), try row.int64(1), try row.double(2), try row.bool(3), try row.blob(4))
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == name)
        #expect(rows[0].1 == 1_099_511_627_776)
        #expect(rows[0].2 == 0.25)
        #expect(rows[0].3 == true)
        #expect(rows[0].4 == bytes)
        #expect(rows[1].0 == "small")
        #expect(rows[1].1 == 7)
        #expect(rows[1].3 == false)
        // An empty blob stays an empty blob, not NULL.
        #expect(try db.scalarString("SELECT typeof(data) FROM item WHERE name = 'small'") == "blob")
        #expect(rows[1].4 == [])
    }

    @Test("text given as its UTF-8 bytes is stored as text, an empty one as empty text, not NULL")
    func utf8TextBinding() throws {
        for text in ["Zoë 😀 \u{0}after NUL", ""] {
            try db.run("INSERT INTO item (name) VALUES (?)", SQLValue.utf8Text(Array(text.utf8)))
            let row = try #require(
                try db.queryFirst("SELECT name, typeof(name) FROM item ORDER BY id DESC LIMIT 1") { row in
                    (try row.string(0), try row.string(1))
                })
            #expect(row == (text, "text"))
        }
    }

    @Test("nil and optionals bind NULL, optional accessors read it, non-optional ones refuse it")
    func nulls() throws {
        let missing: String? = nil
        try db.run("INSERT INTO item (name, size, data) VALUES (?, ?, ?)", missing, nil, nil)
        let row = try #require(
            try db.queryFirst("SELECT name, size, data FROM item") { row in
                (try row.optionalString(0), try row.optionalInt64(1), try row.optionalBlob(2), try row.isNull(0))
            })
        #expect(row.0 == nil)
        #expect(row.1 == nil)
        #expect(row.2 == nil)
        #expect(row.3)
        let error = try #require(throws: SQLiteError.self) {
            try db.forEachRow("SELECT name FROM item") { row in _ = try row.string(0) }
        }
        #expect(error.code == SQLITE_MISMATCH)
        #expect(error.message == "column 0 is NULL")
    }

    @Test("a failure carries the extended code, SQLite's message and the SQL, never the values")
    func errorCarriesCodeMessageAndSQL() throws {
        let insert = "INSERT INTO item (name) VALUES (?)"
        try db.run(insert, "secret-name")
        let error = try #require(throws: SQLiteError.self) { try db.run(insert, "secret-name") }
        #expect(error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.primaryCode == SQLITE_CONSTRAINT)
        #expect(error.isConstraintViolation)
        #expect(error.message == "UNIQUE constraint failed: item.name")
        #expect(error.sql == insert)
        #expect(!error.description.contains("secret-name"))
        #expect(error.description.contains("UNIQUE constraint failed"))
    }

    @Test("a syntax error is reported when the statement is prepared")
    func syntaxError() throws {
        let error = try #require(throws: SQLiteError.self) { try db.run("SELEKT 1") }
        #expect(error.code == SQLITE_ERROR)
        #expect(error.message.contains("syntax error"))
        #expect(error.sql == "SELEKT 1")
    }

    @Test("a wrong number of arguments or a second statement is refused, not ignored")
    func misuse() throws {
        let tooFew = try #require(throws: SQLiteError.self) {
            try db.run("INSERT INTO item (name, size) VALUES (?, ?)", "a")
        }
        #expect(tooFew.code == SQLITE_MISUSE)
        let script = try #require(throws: SQLiteError.self) {
            try db.run("INSERT INTO item (name) VALUES ('a'); DELETE FROM item")
        }
        #expect(script.code == SQLITE_MISUSE)
        #expect(try db.scalarInt64("SELECT count(*) FROM item") == 0)
        // A trailing semicolon is still one statement.
        try db.run("INSERT INTO item (name) VALUES ('b');")
        #expect(try db.scalarInt64("SELECT count(*) FROM item") == 1)
    }

    @Test("execute runs a whole script")
    func executeScript() throws {
        try db.execute("INSERT INTO item (name) VALUES ('a'); INSERT INTO item (name) VALUES ('b');")
        #expect(try db.query("SELECT name FROM item ORDER BY name") { try $0.string(0) } == ["a", "b"])
        let error = try #require(throws: SQLiteError.self) { try db.execute("INSERT INTO nowhere VALUES (1)") }
        #expect(error.message == "no such table: nowhere")
    }

    @Test("lastInsertRowID and changes report the last write")
    func rowIDAndChanges() throws {
        try db.run("INSERT INTO item (name) VALUES (?)", "a")
        let first = db.lastInsertRowID
        try db.run("INSERT INTO item (name) VALUES (?)", "b")
        #expect(db.lastInsertRowID == first + 1)
        try db.run("UPDATE item SET size = 3")
        #expect(db.changes == 2)
        try db.run("DELETE FROM item WHERE name = ?", "nobody")
        #expect(db.changes == 0)
    }

    @Test("a statement is prepared once and reused, also when the same SQL is nested")
    func statementCache() throws {
        let before = db.cachedStatementCount
        for name in ["a", "b", "c"] {
            try db.run("INSERT INTO item (name, size) VALUES (?, ?)", name, name.count)
        }
        #expect(db.cachedStatementCount == before + 1)
        // Reuse must clear old bindings: binding fewer values is impossible, but the values must be the new ones.
        #expect(try db.query("SELECT name FROM item ORDER BY id") { try $0.string(0) } == ["a", "b", "c"])

        // The same SELECT inside its own row closure must not reset the outer iteration.
        let select = "SELECT name FROM item WHERE id > ? ORDER BY id"
        var pairs: [String] = []
        try db.forEachRow(select, 0) { outer in
            let name = try outer.string(0)
            let rest = try db.query(select, 1) { try $0.string(0) }
            pairs.append(name + ":" + rest.joined())
        }
        #expect(pairs == ["a:bc", "b:bc", "c:bc"])
    }

    @Test("SQL built at run time, whose text the next string may reuse the place of, finds its own statement")
    func statementCacheForBuiltSQL() throws {
        for round in 0..<300 {
            let value = round % 7
            // Built, not a literal: freed after each round, so the next SQL text may lie where this one did.
            let sql = "SELECT " + String(repeating: " ", count: round % 3) + "\(value) + ?"
            #expect(try db.scalarInt64(sql, 1) == Int64(value + 1), "\(sql)")
        }
    }

    @Test("user_version is read, written and survives reopening")
    func userVersion() throws {
        #expect(try db.userVersion == 0)
        try db.setUserVersion(7)
        #expect(try db.userVersion == 7)
        let reopened = try Database(path: directory.file("test.sqlite"))
        #expect(try reopened.userVersion == 7)
    }

    @Test("opening a database in a missing directory fails with CANTOPEN and names the path")
    func openFailure() throws {
        let path = directory.file("missing/test.sqlite")
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.primaryCode == SQLITE_CANTOPEN)
        #expect(error.message.contains(path))
    }

    @Test("a writer that cannot get the lock reports busy after its timeout")
    func busy() throws {
        let other = try Database(path: directory.file("test.sqlite"), busyTimeout: .milliseconds(20))
        try db.execute("BEGIN IMMEDIATE")
        let error = try #require(throws: SQLiteError.self) { try other.run("INSERT INTO item (name) VALUES ('x')") }
        #expect(error.isBusy)
        try db.execute("ROLLBACK")
        try other.run("INSERT INTO item (name) VALUES ('x')")
        #expect(try db.scalarInt64("SELECT count(*) FROM item") == 1)
    }
}

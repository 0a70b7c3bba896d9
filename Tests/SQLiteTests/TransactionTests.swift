import SQLite
import TestSupport
import Testing

@Suite("Transactions")
struct TransactionTests {
    struct Boom: Error {}

    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("test.sqlite"))
        try db.execute("CREATE TABLE item (name TEXT NOT NULL)")
    }

    func names() throws -> [String] {
        try db.query("SELECT name FROM item ORDER BY rowid") { try $0.string(0) }
    }

    @Test("a body that returns commit keeps its writes, also for another connection")
    func commit() throws {
        try db.inTransaction {
            try db.run("INSERT INTO item VALUES ('a')")
            #expect(db.isInTransaction)
            return .commit
        }
        #expect(!db.isInTransaction)
        let other = try Database(path: directory.file("test.sqlite"))
        #expect(try other.query("SELECT name FROM item") { try $0.string(0) } == ["a"])
    }

    @Test("a body that throws rolls back and the error comes out unchanged")
    func rollbackOnThrow() throws {
        #expect(throws: Boom.self) {
            try db.inTransaction {
                try db.run("INSERT INTO item VALUES ('a')")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try names() == [])
    }

    @Test("a body that returns rollback leaves nothing behind")
    func explicitRollback() throws {
        try db.inTransaction {
            try db.run("INSERT INTO item VALUES ('a')")
            return .rollback
        }
        #expect(try names() == [])
    }

    @Test("a failing statement inside the body rolls back the earlier ones")
    func rollbackOnSQLiteError() throws {
        let error = try #require(throws: SQLiteError.self) {
            try db.inTransaction {
                try db.run("INSERT INTO item VALUES ('a')")
                try db.run("INSERT INTO item VALUES (NULL)")
                return .commit
            }
        }
        #expect(error.message == "NOT NULL constraint failed: item.name")
        #expect(try names() == [])
    }

    @Test("a nested transaction is a savepoint: its rollback undoes only its own writes")
    func nestedSavepoint() throws {
        try db.inTransaction {
            try db.run("INSERT INTO item VALUES ('outer')")
            try? db.inTransaction {
                try db.run("INSERT INTO item VALUES ('inner-thrown')")
                throw Boom()
            }
            try db.inTransaction {
                try db.run("INSERT INTO item VALUES ('inner-rolled-back')")
                return .rollback
            }
            try db.inTransaction {
                try db.run("INSERT INTO item VALUES ('inner-kept')")
                return .commit
            }
            return .commit
        }
        #expect(try names() == ["outer", "inner-kept"])
    }

    @Test("a whole transaction: nested transactions are parts of it and commit with it")
    func wholeCommits() throws {
        let count = try db.wholeTransaction {
            try db.run("INSERT INTO item VALUES ('outer')")
            try db.transaction { try db.run("INSERT INTO item VALUES ('part')") }
            return try db.scalarInt64("SELECT count(*) FROM item")
        }
        #expect(count == 2)
        #expect(try names() == ["outer", "part"])
        #expect(!db.isInTransaction)
    }

    @Test("a whole transaction: a part that fails rolls back all, even when the body catches its error")
    func wholeRollsBackOnAFailedPart() throws {
        #expect(throws: Boom.self) {
            try db.wholeTransaction {
                try db.run("INSERT INTO item VALUES ('outer')")
                try? db.transaction {
                    try db.run("INSERT INTO item VALUES ('half a part')")
                    throw Boom()
                }
                try db.run("INSERT INTO item VALUES ('after')")
            }
        }
        #expect(throws: SQLiteError.self) {
            try db.wholeTransaction {
                try db.run("INSERT INTO item VALUES ('outer')")
                try? db.inTransaction {
                    try db.run("INSERT INTO item VALUES ('part')")
                    return .rollback
                }
            }
        }
        #expect(throws: SQLiteError.self) {
            try db.wholeTransaction { try db.wholeTransaction { try db.run("INSERT INTO item VALUES ('nested')") } }
        }
        #expect(try names() == [])
        // Outside a whole transaction, nesting is by savepoints again.
        try db.inTransaction {
            try? db.inTransaction {
                try db.run("INSERT INTO item VALUES ('thrown')")
                throw Boom()
            }
            try db.run("INSERT INTO item VALUES ('kept')")
            return .commit
        }
        #expect(try names() == ["kept"])
    }

    @Test("transaction returns the body's value and commits")
    func valueTransaction() throws {
        let count = try db.transaction {
            try db.run("INSERT INTO item VALUES ('a')")
            return try db.scalarInt64("SELECT count(*) FROM item")
        }
        #expect(count == 1)
        #expect(try names() == ["a"])
    }
}

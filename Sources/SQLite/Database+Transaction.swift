import CSQLite

/// How a transaction body ends when it does not throw.
public enum TransactionCompletion: Sendable {
    case commit
    case rollback
}

/// When the transaction takes the write lock.
public enum TransactionKind: String, Sendable {
    /// At the first write: two deferred writers can deadlock into SQLITE_BUSY, so prefer `.immediate` to write.
    case deferred = "DEFERRED"
    /// At BEGIN, waiting up to the busy timeout: the right default for a read-modify-write.
    case immediate = "IMMEDIATE"
    case exclusive = "EXCLUSIVE"
}

extension Database {
    /// True between BEGIN and COMMIT or ROLLBACK.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: commits when it returns `.commit`, rolls back when it returns `.rollback` or
    /// throws (and rethrows). Nested inside another transaction, the body runs in a savepoint instead, so it can
    /// roll back its own part only; inside `wholeTransaction`, it is simply part of the outer one.
    public func inTransaction(
        _ kind: TransactionKind = .immediate, _ body: () throws -> TransactionCompletion
    ) throws {
        if isInTransaction {
            guard nestsWhole else { return try inSavepoint(body) }
            try asPartOfWhole(body)
            return
        }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            rollbackAfterFailure()
            throw error
        }
        switch completion {
        case .commit:
            do {
                try execute("COMMIT TRANSACTION")
            } catch {
                // A failed COMMIT can leave the transaction open (SQLITE_BUSY); do not leave it dangling.
                rollbackAfterFailure()
                throw error
            }
        case .rollback:
            if isInTransaction {
                try execute("ROLLBACK TRANSACTION")
            }
        }
    }

    /// Runs `body` in a transaction that commits when it returns a value and rolls back when it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try body()
            return .commit
        }
        guard let result else {
            // inTransaction returned without running the body to completion: impossible unless it threw.
            throw SQLiteError.misuse("transaction finished without a result")
        }
        return result
    }

    /// A transaction that commits or rolls back whole: transactions nested in it are parts of it, not savepoints,
    /// and one that fails (throws, or asks to roll back) rolls back all, even if the body goes on. For many writes
    /// that stand or fall together (a sync chunk): a savepoint copies every page it changes first to SQLite's
    /// statement journal, which for a chunk of 100 contacts was a temporary file of 1,600 pages.
    public func wholeTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        guard !isInTransaction else { throw SQLiteError.misuse("a whole transaction cannot be nested") }
        nestsWhole = true
        defer {
            nestsWhole = false
            failedPart = nil
        }
        return try transaction(kind) {
            let result = try body()
            if let failedPart { throw failedPart }
            return result
        }
    }

    private func asPartOfWhole(_ body: () throws -> TransactionCompletion) throws {
        do {
            guard try body() == .commit else {
                throw SQLiteError.misuse("a part of a whole transaction cannot roll back alone")
            }
        } catch {
            failedPart = failedPart ?? error
            throw error
        }
    }

    private func inSavepoint(_ body: () throws -> TransactionCompletion) throws {
        savepointCounter += 1
        let name = "nested_\(savepointCounter)"
        try execute("SAVEPOINT \(name)")
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            // Best effort: the original error is the one worth reporting.
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
        if completion == .rollback {
            try execute("ROLLBACK TO SAVEPOINT \(name)")
        }
        try execute("RELEASE SAVEPOINT \(name)")
    }

    private func rollbackAfterFailure() {
        // > If certain kinds of errors occur on a statement within a multi-statement transaction, SQLite may
        // > automatically roll back the transaction (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM).
        // Only roll back what is still open; the error being thrown already says what went wrong.
        if isInTransaction {
            try? execute("ROLLBACK TRANSACTION")
        }
    }
}

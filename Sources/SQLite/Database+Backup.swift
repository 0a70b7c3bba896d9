import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

extension Database {
    /// How a copy ended.
    public enum CopyOutcome: Sendable, Equatable {
        case done
        /// `shouldStop` said so between two steps; the file at `path` is incomplete.
        case stopped
    }

    /// Copies this database, as one consistent snapshot, into a new file at `path` with SQLite's online backup
    /// (https://sqlite.org/backup.html): `pagesPerStep` pages a step, so that the copy holds a few pages at a time
    /// and a caller can stop between steps. Pages, not rows: a text of megabytes is never held whole, as `VACUUM
    /// INTO` (which inserts row by row) would. Changes made meanwhile through this connection are carried into the
    /// copy by SQLite; another connection's write starts it again; a lock it cannot have at once fails it.
    ///
    /// The file at `path` must not exist (it is made with mode 0600), is written without a journal, and is a
    /// database in rollback mode (DELETE), not WAL: what ends
    /// incomplete (an error, a stop, a power cut) is a file to throw away, never a database to trust; the caller
    /// checks the copy and renames it into place. The data is on the disk (fsync) when this returns `.done`.
    public func copy(
        to path: String, pagesPerStep: Int32 = 100, shouldStop: () -> Bool = { false }
    ) throws(SQLiteError) -> CopyOutcome {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SQLiteError(
                code: SQLITE_CANTOPEN, message: "cannot make \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        // The destination is closed before the file is synced: closing another descriptor of a file that a
        // connection has open would drop that connection's POSIX locks.
        let outcome = try backup(into: path, pagesPerStep: pagesPerStep, shouldStop: shouldStop)
        if outcome == .done { try Self.syncToDisk(path) }
        return outcome
    }

    private func backup(
        into path: String, pagesPerStep: Int32, shouldStop: () -> Bool
    ) throws(SQLiteError) -> CopyOutcome {
        let destination = try Database(copyDestination: path)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(destination.handle), message: destination.lastMessage)
        }
        var code = SQLITE_OK
        // Busy or locked ends the copy as an error too (the caller tries again later): with the store in WAL mode a
        // reader is not kept waiting, and a wait here would have no end.
        while true {
            code = sqlite3_backup_step(backup, pagesPerStep)
            guard code == SQLITE_OK else { break }
            if shouldStop() {
                sqlite3_backup_finish(backup)
                return .stopped
            }
        }
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(
                code: code == SQLITE_DONE ? finished : code,
                message: "copying \(self.path) to \(path): \(destination.lastMessage)")
        }
        // The copy's header says WAL, as the source's does: a reader would make a -wal and a -shm beside it.
        try destination.execute("PRAGMA journal_mode=DELETE")
        return .done
    }

    /// `PRAGMA quick_check`: the database's structure (every page, every record's format, index entries in order),
    /// without comparing indexes with their tables; the problems, at most `limit`, or none. Damage the check cannot
    /// get past (the schema's own pages) is its one problem, in SQLite's words.
    public func quickCheck(limit: Int = 100) throws(SQLiteError) -> [String] {
        var problems: [String] = []
        do {
            // A pragma takes no bound parameter; an Int formats to digits only.
            let statement = try Statement(connection: handle, sql: "PRAGMA quick_check(\(max(1, limit)))")
            while try statement.step() {
                let line = try Row(statement: statement).string(0)
                if line != "ok" { problems.append(line) }
            }
        } catch  where error.isDamage {
            problems.append(error.message)
        }
        return problems
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// fsync of a file: a copy, written without syncs of its own.
    static func syncToDisk(_ path: String) throws(SQLiteError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SQLiteError(code: SQLITE_IOERR, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw SQLiteError(code: SQLITE_IOERR, message: "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }
}

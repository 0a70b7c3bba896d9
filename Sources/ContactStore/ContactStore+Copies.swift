import Glibc
import SQLite
import SystemSupport

/// One of the store's safety copies: a consistent copy of the whole database, kept in the folder `copies` beside
/// the store, two generations (`newest.sqlite`, `older.sqlite`), so that a store an SD card damaged can be put back
/// as it was (`ContactStore.recover`), and the next sync brings what changed on the remotes since.
public struct StoreCopy: Sendable, Equatable {
    public var path: String
    /// When it was made (the file's modification time), Unix milliseconds.
    public var madeAt: Int64
    public var bytes: Int64
}

extension ContactStore {
    /// What `makeCopy` did.
    public enum CopyResult: Sendable, Equatable {
        /// A new newest copy; the one before it is the older now.
        case made(StoreCopy)
        /// Nothing changed in the store since the newest copy: no copy made, nothing written.
        case unchanged
        /// `shouldStop` said so; nothing kept.
        case stopped
    }

    /// The folder of the safety copies of the store at `storePath`.
    public static func copiesFolder(of storePath: String) -> String {
        SmallFile.folder(of: storePath) + "/copies"
    }

    /// The safety copies there are, newest first.
    public static func copies(of storePath: String) -> [StoreCopy] {
        let folder = copiesFolder(of: storePath)
        return ["newest.sqlite", "older.sqlite"].compactMap { name in
            var info = stat()
            let path = folder + "/" + name
            guard stat(path, &info) == 0 else { return nil }
            let millis = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
            return StoreCopy(path: path, madeAt: millis, bytes: Int64(info.st_size))
        }
    }

    /// Checks the database's structure (`PRAGMA quick_check`: every page and record, not the store's own rules,
    /// which `check` adds); the problems SQLite found, at most 100, or none.
    public func quickCheck() throws -> [String] {
        try db.quickCheck()
    }

    /// Makes a new newest copy of the store, unless nothing changed since the newest (its change sequence and its
    /// newest history row are the store's): an idle store writes nothing. The copy is SQLite's online backup, 100
    /// pages a step, checked (`quick_check`) before it replaces anything: a store with a damaged page gives a
    /// damaged copy, which is thrown away, and the error says so. The older copy goes, the newest becomes it.
    public func makeCopy(pagesPerStep: Int32 = 100, shouldStop: () -> Bool = { false }) throws -> CopyResult {
        let folder = try Self.makeCopiesFolder(of: path)
        let newest = folder + "/newest.sqlite"
        if let stamp = try? Self.changeStamp(of: Database(readingOnly: newest)), stamp == (try Self.changeStamp(of: db))
        {
            return .unchanged
        }
        let partial = folder + "/partial.sqlite"
        // One left by a copy that a power cut or a stop interrupted.
        unlink(partial)
        do {
            guard try db.copy(to: partial, pagesPerStep: pagesPerStep, shouldStop: shouldStop) == .done else {
                unlink(partial)
                return .stopped
            }
            let problems = try Database(readingOnly: partial).quickCheck()
            guard problems.isEmpty else {
                throw ContactStoreError(
                    .damaged,
                    "the copy of \(path) is damaged, so the store is: \(problems.prefix(3).joined(separator: "; "))")
            }
        } catch {
            unlink(partial)
            throw error
        }
        // A command run as root makes copies that the service's user can still read and replace.
        var owner = stat()
        if getuid() == 0, stat(folder, &owner) == 0 { chown(partial, owner.st_uid, owner.st_gid) }
        _ = rename(newest, folder + "/older.sqlite")
        guard rename(partial, newest) == 0 else {
            throw ContactStoreError(.readOnly, "cannot rename \(partial): \(String(cString: strerror(errno)))")
        }
        SmallFile.syncFolder(folder)
        return Self.copies(of: path).first.map { .made($0) } ?? .unchanged
    }

    /// What SQLite's quick check finds in the database at `path`, opened only to read (one that cannot even be
    /// opened: why); none when it is sound.
    public static func problems(atPath path: String) -> [String] {
        do {
            return try ContactStore(readingOnly: path).quickCheck()
        } catch {
            return ["\(error)"]
        }
    }

    /// The copy a recover puts in place: the newest that passes the quick check now (each was checked when it was
    /// made, but the card may have damaged it since); nil when there is none, or none passes.
    public static func newestGoodCopy(of storePath: String) -> StoreCopy? {
        copies(of: storePath).first { problems(atPath: $0.path).isEmpty }
    }

    /// Puts `copy` in place of the store at `storePath`: the store's files (with its write-ahead log) are moved
    /// aside as `NAME.damaged-TIME`, never deleted, and the copy's bytes written in their place (the copy stays).
    /// No connection of the caller's may be open on the store: `contactbox recover` holds `StoreLock` alone, the
    /// daemon's worker closes its own first (the page's connections see the new file and reopen). Returns where
    /// the old store went.
    public static func recover(_ storePath: String, from copy: StoreCopy, at time: Int64) throws -> String {
        let aside = "\(storePath).damaged-\(time / 1000)"
        // The new file gets the old one's owner (root runs recover; the service's user opens the store).
        var info = stat()
        let owner = stat(storePath, &info) == 0 || stat(copy.path, &info) == 0 ? (info.st_uid, info.st_gid) : nil
        // The copy's bytes first, so that the store's name is missing only between two renames (a page that
        // writes then would make a new store there).
        let partial = storePath + ".recovering"
        try copyFile(copy.path, to: partial)
        if let owner, getuid() == 0 { chown(partial, owner.0, owner.1) }
        for suffix in ["", "-wal", "-shm"] where access(storePath + suffix, F_OK) == 0 {
            guard rename(storePath + suffix, aside + suffix) == 0 else {
                unlink(partial)
                throw ContactStoreError(
                    .readOnly, "cannot move \(storePath + suffix) aside: \(String(cString: strerror(errno)))")
            }
        }
        guard rename(partial, storePath) == 0 else {
            throw ContactStoreError(.readOnly, "cannot rename \(partial): \(String(cString: strerror(errno)))")
        }
        SmallFile.syncFolder(SmallFile.folder(of: storePath))
        return aside
    }

    /// The folder of the copies, made (0700) when missing; made by root (a command), it takes the owner of the
    /// store's folder, the service's user.
    static func makeCopiesFolder(of storePath: String) throws -> String {
        let folder = copiesFolder(of: storePath)
        guard mkdir(folder, 0o700) == 0 else {
            guard errno == EEXIST else {
                throw ContactStoreError(.readOnly, "cannot make \(folder): \(String(cString: strerror(errno)))")
            }
            return folder
        }
        var parent = stat()
        if getuid() == 0, stat(SmallFile.folder(of: storePath), &parent) == 0 {
            chown(folder, parent.st_uid, parent.st_gid)
        }
        return folder
    }

    /// What a copy is compared by: the change sequence and the newest history row.
    private static func changeStamp(of db: Database) throws -> [Int64] {
        [
            try db.scalarInt64("SELECT value FROM sequence WHERE id = 1") ?? 0,
            try db.scalarInt64("SELECT coalesce(max(id), 0) FROM history") ?? 0,
        ]
    }

    /// Copies the file at `source` to a new file at `destination` (0600), 64 KiB at a time, and syncs it.
    private static func copyFile(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw ContactStoreError(.notFound, "cannot open \(source): \(String(cString: strerror(errno)))")
        }
        defer { close(input) }
        unlink(destination)
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            throw ContactStoreError(.readOnly, "cannot make \(destination): \(String(cString: strerror(errno)))")
        }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            guard count > 0,
                buffer.withUnsafeBytes({ Glibc.write(output, $0.baseAddress, count) }) == count
            else {
                unlink(destination)
                throw ContactStoreError(
                    .readOnly, "cannot copy \(source) to \(destination): \(String(cString: strerror(errno)))")
            }
        }
        guard fsync(output) == 0 else {
            unlink(destination)
            throw ContactStoreError(.readOnly, "cannot sync \(destination): \(String(cString: strerror(errno)))")
        }
    }

}

/// Held by the daemon while it runs (a shared `flock` on the folder of the store's copies): `contactbox recover`
/// takes it alone, so it never replaces a store that a running daemon has open. Not on the database file (closing
/// any other descriptor of it drops the POSIX locks SQLite holds on it), nor on the store's folder (the settings
/// and the API tokens take turns on that one's lock).
public final class StoreLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock of `storePath`'s copies folder (made when missing): shared (the daemon) or alone (recover);
    /// nil when another holds it in a way that excludes this one, or the folder cannot be made or opened.
    public init?(storePath: String, exclusive: Bool) {
        guard let folder = try? ContactStore.makeCopiesFolder(of: storePath) else { return nil }
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}

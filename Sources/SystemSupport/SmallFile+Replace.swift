import Glibc

extension SmallFile {
    /// Why a replacement failed: the failed call's errno, and whether the old file is still there as it was (every
    /// step but the folder's final flush leaves it so).
    public struct ReplaceFailure: Error {
        public var code: Int32
        public var isUnchanged: Bool

        public init(code: Int32, isUnchanged: Bool) {
            self.code = code
            self.isUnchanged = isUnchanged
        }

        /// "No space left on device (the disk is full: make room and try again)".
        public var reason: String {
            var text = SystemError.text(code)
            if code == ENOSPC || code == EDQUOT { text += " (the disk is full: make room and try again)" }
            if code == EROFS { text += " (the disk is mounted read-only)" }
            return text
        }
    }

    /// Replaces the file at `path` with `bytes`, all or nothing: a temporary file beside it (`.NAME.new-PID`),
    /// written and fsync'ed, renamed over the old one, then the folder fsync'ed so that the rename itself survives a
    /// power cut. A failure before the rename (a full disk, a read-only card) leaves the old file as it was. The new
    /// file has `mode`, and with `owner` that user and group (a file written by root for the service). `write` is
    /// write(2); a test makes it fail.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t, owner: (uid: uid_t, gid: gid_t)? = nil,
        write: (Int32, UnsafeRawBufferPointer) -> Int = { Glibc.write($0, $1.baseAddress, $1.count) }
    ) throws(ReplaceFailure) {
        let (folder, name) = (folder(of: path), name(of: path))
        let temporary = (folder == "/" ? "" : folder) + "/." + name + ".new-\(getpid())"
        // No other writer in this process uses this name (callers write under a lock): what is there is left over.
        _ = unlink(temporary)
        let out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard out >= 0 else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        var isOpen = true
        var isDone = false
        defer {
            if isOpen { close(out) }
            if !isDone { _ = unlink(temporary) }
        }
        // open's mode passes through the umask.
        guard fchmod(out, mode) == 0 else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        // Only when it changes anything (root writing for the service): the unit's sandbox refuses chown(2) itself.
        if let owner, owner.uid != geteuid() || owner.gid != getegid(), fchown(out, owner.uid, owner.gid) != 0 {
            throw ReplaceFailure(code: errno, isUnchanged: true)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(out, UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if count < 0, errno == EINTR { continue }
            // A write of nothing that is no error is a full disk all the same.
            guard count > 0 else { throw ReplaceFailure(code: count < 0 ? errno : ENOSPC, isUnchanged: true) }
            written += count
        }
        guard fsync(out) == 0 else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        isOpen = false
        // close(2) may report a write that failed late (NFS): the file is then not what was written.
        guard close(out) == 0 else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        guard rename(temporary, path) == 0 else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        isDone = true
        // The rename is on the disk once the folder is: until then a power cut may bring the old file back.
        guard syncFolder(folder) else { throw ReplaceFailure(code: errno, isUnchanged: false) }
    }

    /// Removes the file (a missing one is no error) and makes the removal durable.
    public static func remove(_ path: String) throws(ReplaceFailure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw ReplaceFailure(code: errno, isUnchanged: true) }
        _ = syncFolder(folder(of: path))
    }

    /// The folder a path names a file in: `/var/lib/contactbox` for `/var/lib/contactbox/pairings`, `/` for `/a`,
    /// `.` for a bare name.
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The file's name in its folder.
    public static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// fsync(2) of a folder: what makes a rename or an unlink in it durable.
    @discardableResult
    public static func syncFolder(_ folder: String) -> Bool {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fsync(fd) == 0
    }
}

import Glibc

extension SmallFile {
    /// Replaces the file at `path` with `bytes`, all or nothing: a temporary file beside it, written and fsync'ed,
    /// renamed over the old one, then the folder fsync'ed so that the rename itself survives a power cut. A failure
    /// at any step (a full disk, a read-only card) leaves the old file as it was. The new file has `mode` (and,
    /// with `owner`, that user and group, for a file written by root for the service).
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t, owner: (uid: uid_t, gid: gid_t)? = nil
    ) throws(Failure) {
        let temporary = path + ".new-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw Failure(message: "cannot write \(temporary): " + SystemError.last.description) }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do throws(Failure) {
            guard fchmod(fd, mode) == 0 else { throw failure("cannot set the mode of", temporary) }
            if let owner, fchown(fd, owner.uid, owner.gid) != 0 { throw failure("cannot set the owner of", temporary) }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { buffer in
                    Glibc.write(fd, buffer.baseAddress.map { $0 + written }, bytes.count - written)
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw failure("cannot write", temporary) }
                written += count
            }
            guard fsync(fd) == 0 else { throw failure("cannot write", temporary) }
            closed = true
            guard close(fd) == 0 else { throw failure("cannot write", temporary) }
            guard rename(temporary, path) == 0 else { throw failure("cannot replace", path) }
        } catch {
            unlink(temporary)
            throw error
        }
        syncFolder(of: path)
    }

    /// Removes the file (a missing one is no error) and makes the removal durable.
    public static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("cannot remove", path) }
        syncFolder(of: path)
    }

    /// fsync(2) of the folder holding `path`: what makes a rename or an unlink in it durable. Best effort: the
    /// file's own data is already on the disk.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func failure(_ what: String, _ path: String) -> Failure {
        Failure(message: "\(what) \(path): " + SystemError.last.description)
    }
}

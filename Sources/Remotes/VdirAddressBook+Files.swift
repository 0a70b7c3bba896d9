import Sync
import SystemSupport
import VCard

#if canImport(Glibc)
    import Glibc
#endif

/// The file system side of `VdirAddressBook`: names, stat-based ETags, atomic writes, errno to `RemoteError`.
extension VdirAddressBook {
    /// A file of the book: `*.vcf`, not hidden, and a plain name that cannot leave the folder.
    static func isItemName(_ name: String) -> Bool {
        name.hasSuffix(".vcf") && !name.hasPrefix(".") && !name.contains("/") && name.utf8.count > 4
            && !name.utf8.contains(0)
    }

    func path(_ href: String) -> String { folder + "/" + href }

    func requireItemName(_ href: String) throws {
        guard Self.isItemName(href) else {
            throw RemoteError(.rejected(status: 0), "\(href): not a .vcf file name in \(folder)")
        }
    }

    func checkFolder(createIfMissing: Bool) throws {
        var info = stat()
        if stat(folder, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw RemoteError(.notFound, "\(folder) is not a folder (address book \(name))")
            }
            return
        }
        let code = errno
        guard code == ENOENT else { throw Self.error(code, "cannot open the folder \(folder)") }
        guard createIfMissing else {
            throw RemoteError(.notFound, "folder \(folder) does not exist (address book \(name); not mounted?)")
        }
        // Only the last component: a missing parent is more likely a missing mount than a new book.
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
            throw Self.error(errno, "cannot create the folder \(folder)")
        }
    }

    func openFolder() throws -> VdirDirectory {
        do {
            return try VdirDirectory(path: folder)
        } catch {
            if error.code == ENOENT {
                throw RemoteError(.notFound, "folder \(folder) does not exist (address book \(name); not mounted?)")
            }
            throw Self.error(error.code, "cannot list the folder \(folder)")
        }
    }

    func nextEntry(_ directory: VdirDirectory) throws -> VdirDirectory.Entry? {
        do {
            return try directory.next()
        } catch {
            throw Self.error(error.code, "cannot list the folder \(folder)")
        }
    }

    /// `<mtime in ns>-<size>-<inode>` of a regular file; nil when there is no such file (anything else, a symlink
    /// included, is not an item). lstat, not stat: a rename over a symlink would replace the link, not its target.
    func etag(of href: String) throws -> String? {
        var info = stat()
        guard lstat(path(href), &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw Self.error(code, "cannot stat \(path(href))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return "\(nanoseconds)-\(info.st_size)-\(info.st_ino)"
    }

    /// Throws `.preconditionFailed` unless `href` is still at version `etag`.
    func requireCurrent(_ href: String, etag: String) throws {
        guard let current = try self.etag(of: href) else {
            throw RemoteError(.preconditionFailed, "\(path(href)) was deleted since it was listed")
        }
        guard current == etag else {
            throw RemoteError(.preconditionFailed, "\(path(href)) changed since it was listed")
        }
    }

    /// Writes the card, in `writeVersion`, to `.<href>.tmp-<pid>` in the folder and fsyncs it: the first half of
    /// an atomic write. Returns the temporary file's path; nothing is left behind on failure.
    func writeTemporary(for href: String, _ card: Card) throws -> String {
        let temporary = folder + "/." + href + ".tmp-\(getpid())"
        // A large card is written from its spool file, never held whole.
        let text = card.converted(toVersion: writeVersion).serializedText()
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
        var descriptor = open(temporary, flags, 0o644)
        if descriptor < 0, errno == EEXIST {
            // A leftover of a run of ours with the same pid that was killed mid-write.
            unlink(temporary)
            descriptor = open(temporary, flags, 0o644)
        }
        guard descriptor >= 0 else { throw Self.error(errno, "cannot create \(temporary)") }
        var failure: (code: Int32, what: String)?
        do {
            try text.forEachPiece { bytes in
                var written = 0
                while written < bytes.count, failure == nil, let base = bytes.baseAddress {
                    let count = write(descriptor, base + written, bytes.count - written)
                    if count > 0 {
                        written += count
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        failure = (count < 0 ? errno : EIO, "cannot write")
                    }
                }
            }
        } catch {
            failure = ((error as? SystemError)?.code ?? EIO, "cannot read the card's spool file for")
        }
        if failure == nil, fsync(descriptor) != 0 { failure = (errno, "cannot fsync") }
        // > A careful programmer will check the return value of close() (close(2)): NFS reports write errors here.
        if close(descriptor) != 0, failure == nil { failure = (errno, "cannot write") }
        if let failure {
            unlink(temporary)
            throw Self.error(failure.code, "\(failure.what) \(temporary)")
        }
        return temporary
    }

    /// Moves the written temporary file to `href` unless a file is there already (then `.preconditionFailed`, and
    /// the existing file is untouched).
    func publishNew(_ temporary: String, as href: String) throws {
        let target = path(href)
        // The temporary name goes in every case: after a link the file lives on under `target`.
        defer { unlink(temporary) }
        // > link() creates a new link (also known as a hard link) to an existing file. If newpath exists, it will
        // > not be overwritten. (link(2))
        // renameat2(RENAME_NOREPLACE) would say the same in one step, but Swift's Glibc module does not declare it.
        if link(temporary, target) == 0 { return }
        var code = errno
        if code == EPERM || code == EOPNOTSUPP || code == EMLINK {
            // No hard links here (FAT and exFAT, the usual USB stick): check, then rename. Another writer could
            // slip in between; on such a file system that is the best a folder can do.
            var info = stat()
            if lstat(target, &info) == 0 {
                code = EEXIST
            } else if rename(temporary, target) == 0 {
                return
            } else {
                code = errno
            }
        }
        if code == EEXIST {
            throw RemoteError(.preconditionFailed, "\(target) already exists; not overwritten")
        }
        throw Self.error(code, "cannot write \(target)")
    }

    /// The second half of an atomic update: rename(2) replaces `href` in one step, so a reader sees the old file
    /// or the new one, never a mix.
    func replace(_ href: String, with temporary: String) throws {
        guard rename(temporary, path(href)) == 0 else {
            let code = errno
            unlink(temporary)
            throw Self.error(code, "cannot replace \(path(href))")
        }
    }

    /// Makes the folder's new entries durable: without it a power cut can lose a rename that fsync'd data made.
    func syncFolder() throws {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(errno, "cannot open the folder \(folder)") }
        defer { close(descriptor) }
        // Some file systems (vfat on older kernels, some FUSE mounts) refuse to fsync a directory: nothing to do.
        guard fsync(descriptor) == 0 || errno == EINVAL || errno == EROFS else {
            throw Self.error(errno, "cannot fsync the folder \(folder)")
        }
    }

    /// An errno as the error a sync run can act on: a permission or read-only problem needs a person; anything
    /// else (I/O errors, a stick pulled out, a NAS gone away, a full disk) is tried again later.
    static func error(_ code: Int32, _ what: String) -> RemoteError {
        let text = SystemError.text(code)
        switch code {
        case EACCES, EPERM, EROFS:
            return RemoteError(.unauthorized, "\(what): \(text)")
        case ENOENT, ENOTDIR:
            return RemoteError(.notFound, "\(what): \(text)")
        default:
            return RemoteError(.unreachable, "\(what): \(text)")
        }
    }
}

import Glibc
import SystemSupport

/// An open folder of the settings: locked while a save compares and replaces, flushed after a rename, and whose
/// owner the files written there take.
final class SettingsFolder {
    let path: String
    private let fd: Int32
    /// The folder's owner: a command run as root writes files the service (its own user) can still read.
    private let owner: (uid: uid_t, gid: gid_t)

    /// Opens `path`; with `mode`, creates it when missing and narrows it to `mode` when it is wider (a folder of
    /// passwords open to others is no place to keep them).
    init(path: String, creatingWithMode mode: mode_t?) throws(ConfigurationError) {
        self.path = path
        if let mode, mkdir(path, mode) != 0, errno != EEXIST {
            throw Self.failure(path, "cannot create the folder", errno)
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure(path, "cannot open the folder", errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Self.failure(path, "cannot open the folder", code)
        }
        self.fd = fd
        var owner = (uid: info.st_uid, gid: info.st_gid)
        if let mode {
            // A new folder takes the owner of the one it is in (the state directory's, the service's).
            var parent = stat()
            if geteuid() == 0, info.st_uid == 0, stat(SmallFile.folder(of: path), &parent) == 0, parent.st_uid != 0 {
                if fchown(fd, parent.st_uid, parent.st_gid) == 0 { owner = (parent.st_uid, parent.st_gid) }
            }
            if info.st_mode & 0o7777 != mode, fchmod(fd, mode) != 0 {
                throw Self.failure(path, "cannot make the folder private (chmod \(String(mode, radix: 8)))", errno)
            }
        }
        self.owner = owner
    }

    deinit {
        // Closing the descriptor releases the lock too.
        close(fd)
    }

    /// Waits for other writers of this folder (another page thread, a command) to finish; released at deinit.
    func lock() throws(ConfigurationError) {
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure(path, "cannot lock the folder", errno) }
        }
    }

    /// Replaces `file` (a name in this folder) with `bytes` (`SmallFile.replace`): on any failure but the folder's
    /// last flush the old file is as it was. Root writes it as the folder's owner.
    func replace(
        _ file: String, with bytes: [UInt8], mode: mode_t, what: String,
        write: (Int32, UnsafeRawBufferPointer) -> Int
    ) throws(ConfigurationError) {
        let target = path + "/" + file
        do {
            try SmallFile.replace(
                target, with: bytes, mode: mode, owner: geteuid() == 0 && owner.uid != 0 ? owner : nil, write: write)
        } catch {
            throw Self.failure(
                target, error.isUnchanged ? "cannot save \(what)" : "\(what) may not be on the disk yet", error.code,
                unchanged: error.isUnchanged)
        }
    }

    static func failure(
        _ file: String, _ what: String, _ code: Int32, unchanged: Bool = false
    ) -> ConfigurationError {
        var message = what + ": " + SmallFile.ReplaceFailure(code: code, isUnchanged: unchanged).reason
        if unchanged { message += "; the file is as it was" }
        return ConfigurationError(file: file, message: message, reason: .cannotWrite)
    }
}

@available(*, unavailable) extension SettingsFolder: Sendable {}

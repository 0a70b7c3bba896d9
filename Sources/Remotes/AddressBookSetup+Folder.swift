import Config
import Glibc
import Sync
import SystemSupport

extension AddressBookSetup {
    /// A folder as the one candidate it is: there, a folder, writable by this process, its `.vcf` files counted.
    ///
    /// Writability is tried, not asked of `access(2)`: a read-only mount and systemd's `ProtectSystem=strict` (the
    /// unit makes every path read-only but the state folder and its `ReadWritePaths=`) show only when a file is
    /// created. The probe is a dotfile, which no vdir reader takes for a contact.
    func folderCandidate(_ path: String) throws(SetupFailure) -> Candidate {
        guard path.hasPrefix("/") else { throw SetupFailure(.invalid, "give the folder's full path, from /") }
        guard SmallFile.exists(path) else {
            throw SetupFailure(
                .unreachable, "the folder \(Configuration.shown(path)) does not exist: create it, or mount the disk")
        }
        guard SmallFile.isDirectory(path) else {
            throw SetupFailure(.invalid, "\(Configuration.shown(path)) is not a folder")
        }
        let probe = path + "/.contactbox-setup-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = SystemError.text(errno)
            throw SetupFailure(
                .folderNotWritable,
                "the box may not write to the folder \(Configuration.shown(path)): the service writes only its own "
                    + "folder and those its unit names in ReadWritePaths= (add one with `systemctl edit contactbox`), "
                    + "and the contactbox user must be allowed to write it",
                detail: reason)
        }
        close(fd)
        unlink(probe)
        // Root writes anywhere: run by root (`sudo contactbox remote add`), the probe proves nothing for the
        // service, whose user owns the state folder. Its owner, group and mode bits say it (not ACLs or other
        // groups of the user, which could only allow more).
        if geteuid() == 0, let user = serviceUser(), !Self.writable(path, by: user) {
            throw SetupFailure(
                .folderNotWritable,
                "the service's user may not write to the folder \(Configuration.shown(path)): give it the folder "
                    + "(chown) or write access to it; a folder outside /var/lib/contactbox also needs a "
                    + "ReadWritePaths= line in the unit (`systemctl edit contactbox`)")
        }
        var count = 0
        do {
            let book = try VdirAddressBook(name: "setup", folder: path, createIfMissing: false)
            _ = try book.changes(since: nil, withCards: false, changed: { _ in count += 1 }, removed: { _ in })
        } catch let error as RemoteError {
            throw SetupFailure(error)
        } catch {
            throw SetupFailure(.unreachable, "the folder cannot be read", detail: "\(error)")
        }
        let name = path.split(separator: "/").last.map(String.init)
        return Candidate(url: path, displayName: name, cardCount: count)
    }

    /// The owner of the state folder (where the settings file is), which is the service's user; nil when that is
    /// root (a test, a box run as root): then the probe said it all.
    func serviceUser() -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat(SmallFile.folder(of: settings.path), &info) == 0, info.st_uid != 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }

    /// Whether `user` may make files in the folder by its owner, group and mode bits (write and search).
    static func writable(_ path: String, by user: (uid: uid_t, gid: gid_t)) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let mode = info.st_mode
        if info.st_uid == user.uid { return mode & 0o300 == 0o300 }
        if info.st_gid == user.gid { return mode & 0o030 == 0o030 }
        return mode & 0o003 == 0o003
    }
}

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
}

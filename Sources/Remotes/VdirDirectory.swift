#if canImport(Glibc)
    import Glibc
#endif

/// An open directory, read one entry at a time (readdir(3)), so that a folder of any size is listed in bounded
/// memory. Owns its `DIR *` and closes it in `deinit`.
final class VdirDirectory {
    /// One directory entry: its name and, when the file system says, whether it is a regular file.
    struct Entry {
        var name: String
        /// From `d_type`; nil for `DT_UNKNOWN` (some file systems, e.g. older XFS and some FUSE mounts), where
        /// the caller must lstat(2) to know.
        var isRegularFile: Bool?
    }

    let path: String
    private let handle: OpaquePointer

    /// Opens `path`; the errno of opendir(3) on failure.
    init(path: String) throws(VdirErrno) {
        guard let handle = opendir(path) else { throw VdirErrno(code: errno) }
        self.path = path
        self.handle = handle
    }

    deinit {
        closedir(handle)
    }

    /// The file descriptor of the open directory, for the `*at` calls relative to it.
    var descriptor: Int32 { dirfd(handle) }

    /// The next entry other than `.` and `..`; nil at the end.
    ///
    /// > If the end of the directory stream is reached, NULL is returned and errno is not changed. If an error
    /// > occurs, NULL is returned and errno is set appropriately. (readdir(3))
    func next() throws(VdirErrno) -> Entry? {
        while true {
            errno = 0
            guard let entry = readdir(handle) else {
                let code = errno
                if code != 0 { throw VdirErrno(code: code) }
                return nil
            }
            // A name that is not UTF-8 could not be handed back as an href and opened again: such a file is not one
            // of ours (Card.fileName makes ASCII names) and is passed over like any other stranger in the folder.
            let decoded = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(validating: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let name = decoded, name != ".", name != ".." else { continue }
            let type = entry.pointee.d_type
            let isRegularFile: Bool? = type == UInt8(DT_UNKNOWN) ? nil : type == UInt8(DT_REG)
            return Entry(name: name, isRegularFile: isRegularFile)
        }
    }
}

@available(*, unavailable) extension VdirDirectory: Sendable {}

/// An errno from a file system call, before it is turned into a `RemoteError` that names the file.
struct VdirErrno: Error {
    var code: Int32
}

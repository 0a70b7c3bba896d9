import Glibc

/// Whole small files over libc: the configuration, password and board files, /proc (full Foundation would cost
/// megabytes).
public enum SmallFile {
    public struct Failure: Error {
        public var message: String
    }

    /// The file's bytes, refusing more than `limit` of them. `check` sees the file's `stat` before a byte is read,
    /// so that a password file open to others is refused without reading the password. Opened non-blocking and
    /// refused unless a regular file, so a FIFO or a device in its place cannot hang the reader.
    public static func read(
        _ path: String, limit: Int, check: (stat) -> String? = { _ in nil }
    ) throws(Failure) -> [UInt8] {
        // A socket cannot be opened at all (ENXIO): say what it is rather than "no such device".
        var before = stat()
        if stat(path, &before) == 0, before.st_mode & S_IFMT != S_IFREG {
            throw Failure(message: "is \(kind(before.st_mode)), not a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw Failure(message: "cannot read: " + SystemError.last.description) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(message: "cannot read: " + SystemError.last.description) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(message: "is \(kind(info.st_mode)), not a regular file")
        }
        if let problem = check(info) { throw Failure(message: problem) }
        guard Int(info.st_size) <= limit else { throw Failure(message: "is larger than \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { Glibc.read(fd, $0 + count, limit + 1 - count) } ?? 0
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Failure(message: "cannot read: " + SystemError.last.description) }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw Failure(message: "is larger than \(limit) bytes") }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// What a file that is not a regular one is, for messages.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    /// The file's text, or nil when it cannot be read: for /proc, whose files say they are empty.
    public static func text(_ path: String, limit: Int = 256 * 1024) -> String? {
        (try? read(path, limit: limit)).map { String(decoding: $0, as: UTF8.self) }
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether the file system holding `path` is mounted read-only (statvfs(3)'s `ST_RDONLY`): by its mount
    /// options, or because the kernel remounted it so after an I/O error. False when it cannot be asked.
    public static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The file's size in bytes; 0 when it cannot be read.
    public static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}

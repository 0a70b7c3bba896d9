import Glibc

/// Whole small files over libc: the configuration and password files (full Foundation would cost megabytes).
enum SmallFile {
    struct Failure: Error {
        var message: String
    }

    /// The file's bytes, refusing more than `limit` of them. `check` sees the file's `stat` before a byte is read,
    /// so that a password file open to others is refused without reading the password. Opened non-blocking and
    /// refused unless a regular file, so a FIFO or a device in its place cannot hang the reader.
    static func read(
        _ path: String, limit: Int, check: (stat) -> String? = { _ in nil }
    ) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw Failure(message: "cannot read: " + String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(message: "cannot read: " + String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(message: "is not a regular file") }
        if let problem = check(info) { throw Failure(message: problem) }
        guard Int(info.st_size) <= limit else { throw Failure(message: "is larger than \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let got = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { Glibc.read(fd, $0 + count, limit + 1 - count) } ?? 0
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Failure(message: "cannot read: " + String(cString: strerror(errno))) }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw Failure(message: "is larger than \(limit) bytes") }
        bytes.removeSubrange(count...)
        return bytes
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}

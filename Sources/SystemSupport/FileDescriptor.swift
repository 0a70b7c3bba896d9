import Glibc

/// An open file descriptor, closed when the last reference goes (Docs/contributing.md, rule 2).
public final class FileDescriptor {
    public let fd: Int32

    /// Opens `path` for reading.
    public init(path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError.last }
        self.fd = fd
    }

    deinit { close(fd) }
}

@available(*, unavailable) extension FileDescriptor: Sendable {}

import Glibc
import SystemSupport

/// The few file-system calls the command line needs, over libc (full Foundation would cost megabytes).
public enum FileSystem {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func failure(_ what: String, _ path: String) -> Failure {
        Failure(description: "\(what) \(path): \(SystemError.text(errno))")
    }

    public static func makeDirectories(_ path: String) throws(Failure) {
        guard !path.isEmpty, !SmallFile.isDirectory(path) else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw failure("cannot create folder", path) }
    }

    public static func makeParentDirectories(of path: String) throws(Failure) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        try makeDirectories(String(path[..<slash]))
    }

    /// Calls `body` with each `.vcf` file in a folder, one at a time, without listing the folder in memory.
    public static func forEachCardFile(in folder: String, _ body: (String) throws -> Void) throws {
        guard let directory = opendir(folder) else { throw failure("cannot read folder", folder) }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard !name.hasPrefix("."), name.lowercased().hasSuffix(".vcf") else { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            guard !SmallFile.isDirectory(path) else { continue }
            try body(path)
        }
    }
}

/// Buffered writes to a file descriptor, with every error reported.
public final class FileWriter {
    let fd: Int32
    let name: String
    private let closes: Bool
    private var buffer: [UInt8] = []

    init(fd: Int32, name: String, closes: Bool) {
        self.fd = fd
        self.name = name
        self.closes = closes
        buffer.reserveCapacity(64 * 1024)
    }

    public static func standardOutput() -> FileWriter {
        FileWriter(fd: STDOUT_FILENO, name: "standard output", closes: false)
    }

    public func write(_ text: String) throws(FileSystem.Failure) {
        buffer += text.utf8
        if buffer.count >= 64 * 1024 { try flush() }
    }

    public func flush() throws(FileSystem.Failure) {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                Glibc.write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw FileSystem.failure("cannot write", name) }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { if closes { close(fd) } }
}

@available(*, unavailable) extension FileWriter: Sendable {}

/// A file written next to its final place and renamed over it only when complete, so that a crash or a full disk
/// never leaves a half-written file where a good one was.
public final class AtomicFile {
    let path: String
    private let temporaryPath: String
    private let writer: FileWriter
    private var committed = false

    public init(path: String) throws(FileSystem.Failure) {
        self.path = path
        temporaryPath = path + ".tmp-\(getpid())"
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystem.failure("cannot write", temporaryPath) }
        writer = FileWriter(fd: fd, name: temporaryPath, closes: true)
    }

    public func write(_ text: String) throws(FileSystem.Failure) {
        try writer.write(text)
    }

    /// Flushes, syncs to disk, and renames the file into place.
    public func commit() throws(FileSystem.Failure) {
        try writer.flush()
        guard fsync(writer.fd) == 0 else { throw FileSystem.failure("cannot sync", temporaryPath) }
        guard rename(temporaryPath, path) == 0 else { throw FileSystem.failure("cannot rename into", path) }
        committed = true
    }

    deinit { if !committed { unlink(temporaryPath) } }
}

@available(*, unavailable) extension AtomicFile: Sendable {}

import Glibc
import Synchronization

/// Bytes too many to hold in the process's own memory (a card with a photo of megabytes): an unlinked temporary
/// file, appended to, then read back a piece at a time (`forEachPiece`, `read(at:into:)`). Its pages are the kernel's
/// page cache, which it can write out and take back under memory pressure; they are never mapped into the process,
/// so they are not its footprint either (a mapping of freshly written pages counts them as its private dirty
/// memory). The file is gone with the last reference, and with the process (it has no name, `O_TMPFILE`).
///
/// Written by one thread, then shared read-only: `append` before it is handed on, never after.
public final class SpoolFile: @unchecked Sendable {
    /// Where spool files go: a folder on disk, never a tmpfs (whose pages are memory that cannot be given back).
    /// Programs that open a store set it to the store's folder (`placeBeside`); `/var/tmp` otherwise (FHS: on disk),
    /// which is also where a spool file goes when that folder cannot take one.
    public static var directory: String { directoryBox.withLock { $0 } }

    /// Sets `directory` to the folder of `file` (the store): once at start-up, before any sync runs.
    public static func placeBeside(_ file: String) {
        let folder = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        directoryBox.withLock { $0 = folder.isEmpty ? "/" : folder }
    }

    private static let directoryBox = Mutex("/var/tmp")

    private let fd: Int32
    public private(set) var count = 0

    /// A new empty spool file in `directory`.
    public init(directory: String = SpoolFile.directory) throws(SystemError) {
        var fd = open(directory, Self.tmpFile | O_RDWR | O_CLOEXEC, 0o600)
        if fd < 0, directory != "/var/tmp" { fd = open("/var/tmp", Self.tmpFile | O_RDWR | O_CLOEXEC, 0o600) }
        if fd < 0 {
            // A file system without O_TMPFILE (vfat, NFS): a named file, unlinked at once.
            var template = Array((directory + "/contactbox-spool-XXXXXX").utf8CString)
            fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
            guard fd >= 0 else { throw SystemError.last }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { _ = unlink($0) } }
        }
        self.fd = fd
    }

    /// `O_TMPFILE` (Linux 3.11; a macro of glibc's that Swift does not import): `__O_TMPFILE | O_DIRECTORY`.
    private static let tmpFile: Int32 = 0o20_000_000 | O_DIRECTORY

    deinit { close(fd) }

    /// Appends `bytes` at the end of the file.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let written = pwrite(fd, base + offset, bytes.count - offset, off_t(count + offset))
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw written < 0 ? SystemError.last : SystemError(ENOSPC) }
            offset += written
        }
        count += bytes.count
    }

    public func append(_ bytes: some Sequence<UInt8>) throws(SystemError) {
        let array = Array(bytes)
        var failure: SystemError?
        array.withUnsafeBytes { buffer in
            do throws(SystemError) { try append(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Reads up to `buffer.count` bytes from `offset`: the count read, 0 at the end, -1 on an error (errno).
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var count = 0
        repeat {
            count = pread(fd, base, min(buffer.count, max(0, self.count - offset)), off_t(offset))
        } while count < 0 && errno == EINTR
        return count
    }

    /// The bytes of `range` (all of them by default) in order, in pieces of at most `size`, read into one buffer
    /// that each piece reuses; a failed read throws its `SystemError`, and so does a file shorter than `range`.
    public func forEachPiece(
        in range: Range<Int>? = nil, size: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let range = range ?? 0..<count
        guard !range.isEmpty else { return }
        try withUnsafeTemporaryAllocation(byteCount: min(size, range.count), alignment: 16) { buffer in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let wanted = UnsafeMutableRawBufferPointer(
                    rebasing: buffer[..<min(buffer.count, range.upperBound - offset)])
                let got = read(at: offset, into: wanted)
                guard got > 0 else { throw got < 0 ? SystemError.last : SystemError(EIO) }
                try body(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
                offset += got
            }
        }
    }

    /// All the bytes, in memory: for a person's eyes and for tests, never on a sync's path. Empty when they cannot
    /// be read.
    public func readAll() -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        do { try forEachPiece { result += $0 } } catch { return [] }
        return result
    }
}

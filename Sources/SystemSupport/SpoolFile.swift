import Glibc
import Synchronization

/// Bytes too many to hold in the process's own memory (a card with a photo of megabytes): an unlinked temporary
/// file, appended to, then read through a read-only shared mapping. Its pages are the kernel's page cache, which it
/// can write out and take back under memory pressure, not the process's footprint; the file is gone with the last
/// reference, and with the process (it has no name, `O_TMPFILE`).
///
/// Written by one thread, then shared read-only: `append` before the first `withBytes`, never after.
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
    private var mapping: UnsafeRawBufferPointer?

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

    deinit {
        if let mapping, let base = mapping.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: base), mapping.count)
        }
        close(fd)
    }

    /// Appends `bytes` at the end of the file.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        unmap()
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

    /// The bytes written so far, mapped read-only; valid within `body` (and for as long as nothing is appended).
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(bytes)
    }

    /// The mapping itself, for readers that keep a reference to this file while they use it (`LargeValue`).
    /// Empty when the file is, or when it cannot be mapped (then `isReadable` is false).
    public var bytes: UnsafeRawBufferPointer {
        if let mapping { return mapping }
        guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let base = mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        let mapped = UnsafeRawBufferPointer(start: base, count: count)
        mapping = mapped
        return mapped
    }

    /// The bytes can be read (they were mapped, or there are none).
    public var isReadable: Bool { count == 0 || bytes.count == count }

    private func unmap() {
        guard let mapping, let base = mapping.baseAddress else { return }
        munmap(UnsafeMutableRawPointer(mutating: base), mapping.count)
        self.mapping = nil
    }
}

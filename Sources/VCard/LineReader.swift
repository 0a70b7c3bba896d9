#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file descriptor, closed when the last reference goes (STYLE.md 2).
final class FileDescriptor {
    let fd: Int32

    init(path: String) throws(VCardError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw VCardError(.unreadableInput, line: 0, "cannot open: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }

    deinit { close(fd) }
}

@available(*, unavailable) extension FileDescriptor: Sendable {}

/// Splits a byte stream into physical lines (LF or CRLF) in bounded memory: it holds one read chunk plus at most
/// one line of `maxLineLength` bytes, and discards a longer line instead of growing.
struct LineReader {
    enum Line {
        case text(ArraySlice<UInt8>, number: Int)
        case tooLong(number: Int)
    }

    static let chunkSize = 64 * 1024

    private let file: FileDescriptor?
    private var buffer: [UInt8]
    private var start = 0
    private var scanned = 0
    private var atEnd: Bool
    private(set) var lineNumber = 0
    /// Bytes taken from the source so far, for progress reports.
    private var bytesRead = 0
    private(set) var readError: String?
    let maxLineLength: Int

    init(file: FileDescriptor, maxLineLength: Int) {
        self.file = file
        self.buffer = []
        self.atEnd = false
        self.maxLineLength = maxLineLength
    }

    init(bytes: [UInt8], maxLineLength: Int) {
        self.file = nil
        self.buffer = bytes
        self.bytesRead = bytes.count
        self.atEnd = true
        self.maxLineLength = maxLineLength
    }

    /// How far into the input the lines handed out so far reach.
    var position: Int { bytesRead - (buffer.count - start) }

    mutating func next() -> Line? {
        var discarding = false
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                scanned = start
                if discarding || line.count > maxLineLength { return .tooLong(number: lineNumber) }
                return .text(line, number: lineNumber)
            }
            scanned = buffer.count
            if atEnd {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                if discarding || line.count > maxLineLength { return .tooLong(number: lineNumber) }
                return .text(line, number: lineNumber)
            }
            if buffer.count - start > maxLineLength {
                // Too long to ever be accepted: drop what we have and skip to the end of this line.
                discarding = true
                start = buffer.count
                scanned = start
            }
            fill()
        }
    }

    /// Moves the unread bytes to the front and reads one more chunk.
    private mutating func fill() {
        guard let file else {
            atEnd = true
            return
        }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBufferPointer { pointer in
                read(file.fd, pointer.baseAddress.map { $0 + old }, Self.chunkSize)
            }
        } while count < 0 && errno == EINTR
        if count < 0 { readError = String(cString: strerror(errno)) }
        bytesRead += max(count, 0)
        buffer.removeLast(Self.chunkSize - max(count, 0))
        if count <= 0 { atEnd = true }
    }
}

import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Splits a byte stream into physical lines in bounded memory: it holds one read chunk plus at most one line of
/// `maxLineLength` bytes, and hands a longer line out in pieces of that size (`Line.piece`) instead of growing.
///
/// A line ends with LF, CR LF, any run of CRs before an LF (CR CR LF: a file whose line ends were converted twice on
/// Windows), or a CR alone (old Mac files); one file may mix them. Ends other than LF and CR LF are counted in
/// `unusualLineEnds`, so that the card they were in can say it was repaired.
struct LineReader {
    enum Line {
        /// A whole line, or the last part of one handed out in pieces.
        case text(ArraySlice<UInt8>, number: Int)
        /// A part of a line longer than `maxLineLength`: more of the same line follows.
        case piece(ArraySlice<UInt8>, number: Int)

        var bytes: ArraySlice<UInt8> {
            switch self {
            case .text(let bytes, _), .piece(let bytes, _): bytes
            }
        }

        var number: Int {
            switch self {
            case .text(_, let number), .piece(_, let number): number
            }
        }
    }

    static let chunkSize = 64 * 1024
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// Where the bytes come from: a file read a chunk at a time, a spool file likewise, or nothing (`bytes`).
    private enum Source {
        case file(FileDescriptor)
        case spool(SpoolFile)
    }

    private let source: Source?
    private var buffer: [UInt8]
    private var start = 0
    private var scanned = 0
    private var atEnd: Bool
    private(set) var lineNumber = 0
    /// Lines that ended with CR CR LF or a bare CR so far.
    private(set) var unusualLineEnds = 0
    /// Set when the input is UTF-16 (it starts with a UTF-16 byte order mark): what is read goes through it.
    private var transcoder: Transcoder?
    /// The encoding the input was converted from, when it was not UTF-8 ("UTF-16").
    private(set) var convertedFrom: String?
    /// Bytes taken from the source so far, for progress reports.
    private var bytesRead = 0
    private(set) var readError: String?
    let maxLineLength: Int

    init(file: FileDescriptor, maxLineLength: Int) {
        self.source = .file(file)
        self.buffer = []
        self.atEnd = false
        self.maxLineLength = maxLineLength
    }

    init(spool: SpoolFile, maxLineLength: Int) {
        self.source = .spool(spool)
        self.buffer = []
        self.atEnd = false
        self.maxLineLength = maxLineLength
    }

    init(bytes: [UInt8], maxLineLength: Int) {
        self.source = nil
        self.buffer = bytes
        self.atEnd = true
        self.maxLineLength = maxLineLength
        if Self.startsAsUTF16(bytes[...]), let transcoder = Transcoder(from: "UTF-16") {
            buffer = transcoder.convert(bytes[...], final: true)
            convertedFrom = "UTF-16"
        }
        self.bytesRead = buffer.count
    }

    /// A UTF-16 byte order mark (little or big endian), and not the UTF-32 one that starts like it.
    private static func startsAsUTF16(_ bytes: ArraySlice<UInt8>) -> Bool {
        let head = Array(bytes.prefix(4))
        guard head.count >= 2 else { return false }
        if head[0] == 0xFE, head[1] == 0xFF { return true }
        return head[0] == 0xFF && head[1] == 0xFE && !(head.count == 4 && head[2] == 0 && head[3] == 0)
    }

    /// How far into the input the lines handed out so far reach.
    /// (Approximate for converted input, whose buffered bytes are UTF-8 and not those read.)
    var position: Int { min(bytesRead, max(0, bytesRead - (buffer.count - start))) }

    mutating func next() -> Line? {
        while true {
            if let end = lineBreak(from: scanned) {
                if let after = terminatorEnd(at: end) {
                    lineNumber += 1
                    let line = buffer[start..<end]
                    start = after
                    scanned = start
                    return .text(line, number: lineNumber)
                }
                scanned = end  // a run of CRs at the end of the buffer: read on to see whether an LF follows
            } else {
                scanned = buffer.count
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                return .text(line, number: lineNumber)
            }
            if scanned - start >= maxLineLength {
                // A long line (an unfolded photo): what is read of it so far goes out, and reading goes on.
                let piece = buffer[start..<scanned]
                start = scanned
                return .piece(piece, number: lineNumber + 1)
            }
            fill()
        }
    }

    /// The index of the first LF or CR from `index` on: memchr(3) for each, which reads many bytes an instruction
    /// (a photo is hundreds of folded lines, and a loop a byte at a time was a tenth of reading one).
    private func lineBreak(from index: Int) -> Int? {
        buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, index < bytes.count else { return nil }
            // A CR is looked for only before the first LF.
            var end = memchr(base + index, Int32(Self.lineFeed), bytes.count - index).map { base.distance(to: $0) }
            if let carriageReturn = memchr(base + index, Int32(Self.carriageReturn), (end ?? bytes.count) - index) {
                end = base.distance(to: carriageReturn)
            }
            return end
        }
    }

    /// Where the line end that starts at `end` stops, or nil when a run of CRs reaches the end of the buffer and
    /// more input may still bring the LF that decides it.
    /// A run of more CRs than this is not one line end: the first CR ends the line alone (so that the CRs of a
    /// broken file never pile up in the buffer waiting for an LF).
    static let maxCRRun = 8

    private mutating func terminatorEnd(at end: Int) -> Int? {
        guard buffer[end] == Self.carriageReturn else { return end + 1 }
        var index = end
        while index < buffer.count, index - end < Self.maxCRRun, buffer[index] == Self.carriageReturn { index += 1 }
        if index == buffer.count, !atEnd { return nil }
        if index < buffer.count, buffer[index] == Self.lineFeed {
            if index - end > 1 { unusualLineEnds += 1 }
            return index + 1
        }
        unusualLineEnds += 1
        return end + 1  // a bare CR ends one line; the CRs after it end empty lines
    }

    /// Moves the unread bytes to the front and reads one more chunk.
    private mutating func fill() {
        guard let source else {
            atEnd = true
            return
        }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        let old = buffer.count
        // Read into scratch space and append what came: growing the buffer by a chunk of zeros first appended them
        // one at a time, twice a file (the file, then its end), a quarter of the CPU of reading a folder of cards.
        let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.chunkSize) { chunk in
            var count = 0
            switch source {
            case .file(let file):
                repeat {
                    count = read(file.fd, chunk.baseAddress, Self.chunkSize)
                } while count < 0 && errno == EINTR
            case .spool(let spool):
                count = spool.read(at: bytesRead, into: UnsafeMutableRawBufferPointer(chunk))
            }
            if count < 0 { readError = SystemError.text(errno) }  // before the scratch space is freed
            if count > 0 { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count])) }
            return count
        }
        let firstChunk = bytesRead == 0
        bytesRead += max(count, 0)
        if count <= 0 { atEnd = true }
        if firstChunk, Self.startsAsUTF16(buffer[old...]), let transcoder = Transcoder(from: "UTF-16") {
            self.transcoder = transcoder
            convertedFrom = "UTF-16"
        }
        if let transcoder {
            let raw = buffer[old...]
            let converted = transcoder.convert(raw, final: atEnd)
            buffer.removeSubrange(old...)
            buffer += converted
        }
    }
}

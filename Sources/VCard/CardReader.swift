/// A card as read from input, with where it started and what was repaired on the way in.
public struct ParsedCard: Sendable {
    public var card: Card
    /// The line of its `BEGIN:VCARD`.
    public var line: Int
    /// What was changed to make the card usable ("added UID ...", "derived FN from N"), for the import report.
    public var repairs: [String]
    /// What sync reports too, naming the item: a UID changed (also in `repairs`), data kept as it is that is not
    /// valid (not a repair: the card is written back as it was read).
    public var warnings: [String]

    public init(card: Card, line: Int, repairs: [String], warnings: [String] = []) {
        self.card = card
        self.line = line
        self.repairs = repairs
        self.warnings = warnings
    }
}

/// Reads cards one by one from a file or bytes of any size, in bounded memory: the lines of one card, each of at
/// most `Limits.maxLineBytes`, are held at a time; the value of a photo, logo, sound or key longer than
/// `Limits.spillBytes` goes to a spool file as it is read (`LargeValue`), up to a card of `Limits.maxCardBytes`.
///
/// A card with a problem yields a `VCardError` naming the line, and reading goes on with the next card.
public struct CardReader {
    public enum Limits {
        /// A longer (unfolded) line is rejected, unless it is a photo, logo, sound or key, which is spooled.
        public static let maxLineBytes = 1 << 20
        /// A larger card is refused: a phone's photo is a few megabytes (a 12-megapixel JPEG, base64).
        public static let maxCardBytes = 16 << 20
        /// A longer value of a photo, logo, sound or key goes to a spool file.
        public static let spillBytes = CardText.spoolThreshold
        /// A card that cannot be read is kept as it is (opaque) up to this size, and refused beyond it: an opaque
        /// card is held whole.
        public static let maxOpaqueBytes = 2 << 20
    }

    struct RawLine {
        var bytes: [UInt8]
        var number: Int
        /// The value, where it was spooled (`bytes` then ends with the `:` before it).
        var large: LargeValue?

        /// Bytes in the card: the line's and its spooled value's.
        var size: Int { bytes.count + (large?.count ?? 0) }
    }

    private var lines: LineReader
    private var lookahead: LineReader.Line?
    private var pendingBegin: Int?
    /// A byte order mark was seen before the card about to be read (at the start of the input, or of a file that
    /// was appended to another).
    private var pendingBOM = false

    public init(path: String) throws(VCardError) {
        lines = LineReader(file: try Self.open(path), maxLineLength: Limits.spillBytes)
    }

    public init(bytes: [UInt8]) {
        lines = LineReader(bytes: bytes, maxLineLength: Limits.spillBytes)
    }

    /// Reads a card's text, a spooled one a chunk at a time.
    public init(text: CardText) {
        switch text {
        case .bytes(let bytes): self.init(bytes: bytes)
        case .spooled(let file): self.init(lines: LineReader(spool: file, maxLineLength: Limits.spillBytes))
        }
    }

    private init(lines: LineReader) {
        self.lines = lines
    }

    public init(text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Bytes of the input read so far, for progress bars.
    public var position: Int { lines.position }

    /// The next card, or the error that made the reader skip one; nil at the end of the input.
    public mutating func next() -> Result<ParsedCard, VCardError>? {
        var begin = pendingBegin
        pendingBegin = nil
        var garbageLine: Int?
        // Outside a card: find BEGIN:VCARD, reporting any other content once.
        while begin == nil {
            guard let line = nextLogicalLine() else {
                if let garbageLine { return .failure(missingBegin(garbageLine)) }
                if let error = lines.readError {
                    return .failure(VCardError(.unreadableInput, line: lines.lineNumber, error))
                }
                return nil
            }
            let hadByteOrderMark = (try? line.get())?.bytes.starts(with: Self.byteOrderMark) == true
            switch line.map(Self.withoutByteOrderMark) {
            case .success(let raw) where Self.isBegin(raw.bytes):
                if hadByteOrderMark { pendingBOM = true }
                if let garbageLine {
                    pendingBegin = raw.number
                    return .failure(missingBegin(garbageLine))
                }
                begin = raw.number
            case .success(let raw) where raw.bytes.allSatisfy(Self.isSpace):
                continue
            case .success(let raw):
                if garbageLine == nil { garbageLine = raw.number }
            case .failure(let error):
                if garbageLine == nil { garbageLine = error.line }
            }
        }
        return readCard(beginningAt: begin ?? 0)
    }

    private func missingBegin(_ line: Int) -> VCardError {
        VCardError(
            .missingBegin, line: line, "content outside a card: expected BEGIN:VCARD; skipped up to the next card")
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The line without a leading UTF-8 byte order mark.
    private static func withoutByteOrderMark(_ raw: RawLine) -> RawLine {
        guard raw.bytes.starts(with: byteOrderMark) else { return raw }
        return RawLine(bytes: Array(raw.bytes.dropFirst(3)), number: raw.number)
    }

    private mutating func readCard(beginningAt begin: Int) -> Result<ParsedCard, VCardError> {
        var log = RepairLog()
        if let encoding = lines.convertedFrom { log.note(.fileEncoding, encoding) }
        if pendingBOM { log.note(.byteOrderMark) }
        pendingBOM = false
        let unusualLineEndsBefore = lines.unusualLineEnds
        var body: [RawLine] = []
        var size = 0
        var failure: VCardError?
        while let line = nextLogicalLine() {
            switch line {
            case .failure(let error):
                if failure == nil { failure = error }
            case .success(let raw) where Self.isEnd(raw.bytes):
                if let failure { return .failure(failure) }
                if lines.unusualLineEnds > unusualLineEndsBefore { log.note(.lineEnds) }
                return CardParser.parse(body, beginLine: begin, repairs: log)
            case .success(let raw) where Self.isBegin(raw.bytes):
                // A second BEGIN before END: the first card was cut off. Read the new one next time.
                pendingBegin = raw.number
                return .failure(unterminated(begin))
            case .success(let raw):
                guard failure == nil else { continue }
                size += raw.size
                if size > Limits.maxCardBytes {
                    failure = VCardError(
                        .cardTooLarge, line: raw.number, "card is larger than \(Limits.maxCardBytes >> 20) MiB")
                    body = []
                } else if !raw.bytes.allSatisfy(Self.isSpace) {
                    body.append(raw)
                }
            }
        }
        return .failure(failure ?? unterminated(begin))
    }

    private func unterminated(_ begin: Int) -> VCardError {
        VCardError(.unterminatedCard, line: begin, "card starting here has no END:VCARD")
    }

    /// One content line with folding undone (RFC 6350 3.2: a line starting with a space or tab continues the
    /// previous one), and vCard 2.1 quoted-printable soft line breaks (a line ending in `=`) joined.
    private mutating func nextLogicalLine() -> Result<RawLine, VCardError>? {
        guard let first = lookahead ?? lines.next() else { return nil }
        lookahead = nil
        var line = LogicalLine(number: first.number)
        appendPhysicalLine(first, dropping: 0, to: &line)
        while let next = lines.next() {
            let more = next.bytes
            // Quoted-printable is judged on the line unfolded so far, not its first physical line: a fold right
            // after `ENCODING=QUOTED-PRINTABLE` may continue the value as `...PRINTABLE8BIT`, no declaration at all
            // (found by fuzzing: a `TYPE=` ending the next physical line was then taken for a soft line break).
            if line.spool == nil, line.bytes.last == UInt8(ascii: "="), QuotedPrintable.isDeclared(in: line.bytes) {
                // A soft line break (RFC 2045 6.7): what follows is the value's next bytes, leading spaces included.
                // Some phones end a value with one and an empty line, which ends the value.
                line.bytes.removeLast()
                appendPhysicalLine(next, dropping: 0, to: &line)
            } else if let head = more.first, head == UInt8(ascii: " ") || head == UInt8(ascii: "\t") {
                appendPhysicalLine(next, dropping: 1, to: &line)
            } else {
                lookahead = next
                break
            }
        }
        return line.finish()
    }

    /// Appends a physical line from `start` on, with the rest of its pieces when it comes in pieces.
    private mutating func appendPhysicalLine(_ start: LineReader.Line, dropping: Int, to line: inout LogicalLine) {
        var part = start
        line.append(part.bytes.dropFirst(dropping))
        while case .piece = part, let next = lines.next() {
            part = next
            line.append(part.bytes)
        }
    }

    private func tooLong(_ line: Int) -> VCardError {
        VCardError(.lineTooLong, line: line, "line is longer than \(Limits.maxLineBytes >> 20) MiB")
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    static func isBegin(_ bytes: [UInt8]) -> Bool { matches(bytes, "BEGIN:VCARD") }
    static func isEnd(_ bytes: [UInt8]) -> Bool { matches(bytes, "END:VCARD") }

    /// Case-insensitive match, ignoring trailing white space.
    private static func matches(_ bytes: [UInt8], _ keyword: StaticString) -> Bool {
        var end = bytes.count
        while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
        guard end == keyword.utf8CodeUnitCount else { return false }
        return keyword.withUTF8Buffer { expected in
            zip(bytes[..<end], expected).allSatisfy { a, b in a == b || (a >= 0x61 && a <= 0x7A && a - 0x20 == b) }
        }
    }
}

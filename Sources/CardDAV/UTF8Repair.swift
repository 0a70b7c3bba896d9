/// Makes a multistatus body that says it is UTF-8 fit for libxml2, which stops the whole document at the first
/// byte that is not UTF-8 (a fatal error): one damaged card would cost the whole listing. Each ill-formed sequence
/// (Unicode 3.9, "maximal subpart"), and each control character or noncharacter XML forbids, becomes U+FFFD; a
/// character reference to one (`&#x0B;`, as a serializer may write a vertical tab from Outlook) becomes
/// `&#xFFFD;`. Where each replacement went is remembered, so that the parser can mark the one response it fell in as damaged: a card whose
/// bytes were changed is never taken as good data.
///
/// Streaming and bounded: a sequence cut by a chunk boundary waits (at most 3 bytes) for the next chunk.
/// Documents in another encoding (a UTF-16 byte order, `encoding="ISO-8859-1"` in the XML declaration) are passed
/// through untouched: their bytes mean something else, and libxml2 converts them itself.
struct UTF8Repair {
    /// The XML declaration is looked for in this many bytes at most.
    static let maxHeadBytes = 512

    private enum Mode { case sniffing, repairing, passing }
    private var mode = Mode.sniffing
    private var head: [UInt8] = []
    /// The start of a sequence cut by the end of the last chunk.
    private var pending: [UInt8] = []
    /// Bytes handed out so far.
    private(set) var offset = 0
    /// Offsets (in the bytes handed out) of the replacements not yet taken by `takeDamage(before:)`, in order.
    private var damage: [Int] = []
    private var damageTaken = 0

    /// The bytes to parse for this chunk (none while the XML declaration is still incomplete); `final` for the
    /// end of the body.
    mutating func repair(_ chunk: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
        if mode == .sniffing {
            head += chunk
            guard final || head.contains(UInt8(ascii: ">")) || head.count >= Self.maxHeadBytes else { return [] }
            mode = Self.declaresOtherEncoding(head) ? .passing : .repairing
            let bytes = head
            head = []
            return bytes.withUnsafeBytes { process($0, final: final) }
        }
        return process(chunk, final: final)
    }

    /// How many replacements lie before `position` (a count of bytes handed out) and were not counted yet.
    mutating func takeDamage(before position: Int) -> Int {
        let start = damageTaken
        while damageTaken < damage.count, damage[damageTaken] < position { damageTaken += 1 }
        let taken = damageTaken - start
        if damageTaken == damage.count {
            damage.removeAll(keepingCapacity: true)
            damageTaken = 0
        }
        return taken
    }

    private mutating func process(_ chunk: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
        guard mode == .repairing else {
            offset += chunk.count
            return Array(chunk)
        }
        var output: [UInt8] = []
        if pending.isEmpty {
            // The usual case: the chunk is read where it lies, not copied first.
            output.reserveCapacity(chunk.count)
            repair(chunk.assumingMemoryBound(to: UInt8.self), final: final, into: &output)
        } else {
            var input = pending
            pending = []
            input += chunk
            output.reserveCapacity(input.count)
            input.withUnsafeBufferPointer { repair($0, final: final, into: &output) }
        }
        offset += output.count
        return output
    }

    private mutating func repair(_ input: UnsafeBufferPointer<UInt8>, final: Bool, into output: inout [UInt8]) {
        var index = 0
        while index < input.count {
            // Most of a body is plain ASCII text: a run of it is copied at once, found eight bytes at a time
            // between the line breaks.
            var end = index
            while true {
                while end + 8 <= input.count, Self.isPrintable(word: Self.word(input, at: end)) { end += 8 }
                guard end < input.count, Self.isPlain(input[end]) else { break }
                end += 1
            }
            if end > index {
                output.append(contentsOf: input[index..<end])
                index = end
                continue
            }
            if input[index] == UInt8(ascii: "&") {
                switch Self.reference(input, at: index) {
                case .incomplete where !final:
                    pending = Array(input[index...])
                    return
                case .invalid(let length):
                    damage.append(offset + output.count)
                    output += Array("&#xFFFD;".utf8)
                    index += length
                    continue
                default:
                    break  // an entity, a good reference, or no reference at all: libxml2 judges it
                }
            }
            switch Self.sequence(input, at: index) {
            case .valid(let length):
                output.append(contentsOf: input[index..<index + length])
                index += length
            case .incomplete where !final:
                pending = Array(input[index...])
                return
            case .incomplete:
                replace(into: &output)
                return
            case .invalid(let length):
                replace(into: &output)
                index += length
            }
        }
    }

    /// An ASCII byte that is an XML character on its own and starts no reference.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: "&") && (byte >= 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D)
    }

    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + index).loadUnaligned(as: UInt64.self)
    }

    /// Whether all eight bytes are printable ASCII (0x20-0x7F) and none is `&` (Bit Twiddling Hacks: "determine if
    /// a word has a byte less than n", and "... a zero byte" for `&`).
    private static func isPrintable(word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let ampersands = word ^ (ones &* UInt64(UInt8(ascii: "&")))
        let nonASCII = word & highs
        let control = (word &- ones &* 0x20) & ~word & highs
        let ampersand = (ampersands &- ones) & ~ampersands & highs
        return nonASCII | control | ampersand == 0
    }

    private mutating func replace(into output: inout [UInt8]) {
        damage.append(offset + output.count)
        output += [0xEF, 0xBF, 0xBD]
    }

    enum Sequence: Equatable {
        case valid(Int)
        /// A valid start cut off by the end of the bytes.
        case incomplete
        /// Not UTF-8, or a character XML 1.0 forbids: replace this many bytes (the maximal subpart, at least 1).
        case invalid(Int)
    }

    /// The UTF-8 sequence at `index` (Unicode Table 3-7), judged as XML 1.0 character data.
    static func sequence(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Sequence {
        let first = bytes[index]
        if first < 0x80 {
            // XML 1.0 Char: tab, line feed and carriage return are the only controls.
            return first >= 0x20 || first == 0x09 || first == 0x0A || first == 0x0D ? .valid(1) : .invalid(1)
        }
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return .invalid(1)
        }
        for offset in 1..<length {
            guard index + offset < bytes.count else { return .incomplete }
            let byte = bytes[index + offset]
            guard byte >= (offset == 1 ? low : 0x80), byte <= (offset == 1 ? high : 0xBF) else {
                return .invalid(offset)
            }
        }
        // U+FFFE and U+FFFF are no XML characters either.
        if first == 0xEF, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE { return .invalid(3) }
        return .valid(length)
    }

    /// A character reference at `index` (which holds `&`): `.invalid` with its length when it names a character
    /// XML 1.0 does not allow (libxml2 stops the document there too), `.incomplete` when the bytes end inside one.
    static func reference(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Sequence {
        var position = index + 1
        guard position < bytes.count else { return .incomplete }
        guard bytes[position] == UInt8(ascii: "#") else { return .valid(1) }
        position += 1
        guard position < bytes.count else { return .incomplete }
        let hex = bytes[position] == UInt8(ascii: "x")
        if hex { position += 1 }
        var value = 0
        var digits = 0
        while position < bytes.count, digits <= 8 {
            let byte = bytes[position]
            if byte == UInt8(ascii: ";") {
                guard digits > 0 else { return .valid(1) }
                return isXMLCharacter(value) ? .valid(1) : .invalid(position + 1 - index)
            }
            guard let digit = digitValue(byte, hex: hex) else { return .valid(1) }
            value = value * (hex ? 16 : 10) + digit
            digits += 1
            position += 1
        }
        return digits > 8 ? .valid(1) : .incomplete
    }

    private static func digitValue(_ byte: UInt8, hex: Bool) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// XML 1.0 `Char`.
    private static func isXMLCharacter(_ value: Int) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// Whether the start of a document says it is not UTF-8: a UTF-16 or UTF-32 byte order, or an XML declaration
    /// naming another encoding.
    static func declaresOtherEncoding(_ head: [UInt8]) -> Bool {
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.first == 0 {
            return true
        }
        if head.count > 1, head[1] == 0 { return true }
        guard head.starts(with: Array("<?xml".utf8)) else { return false }
        let declaration = String(decoding: head.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)
        guard let key = declaration.firstRange(of: "encoding") else { return false }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return false }
        let name = rest.dropFirst().prefix { $0 != quote }.lowercased()
        return name != "utf-8" && name != "utf8"
    }
}

/// Makes a multistatus body that says it is UTF-8 fit for libxml2, which stops the whole document at the first
/// byte that is not UTF-8 (a fatal error): one damaged card would cost the whole listing. Each ill-formed sequence
/// (Unicode 3.9, "maximal subpart"), and each control character or noncharacter XML forbids, becomes U+FFFD, and
/// where it went is remembered, so that the parser can mark the one response it fell in as damaged: a card whose
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
        var input = pending
        pending = []
        input += chunk
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            switch Self.sequence(input, at: index) {
            case .valid(let length):
                output += input[index..<index + length]
                index += length
            case .incomplete where !final:
                pending = Array(input[index...])
                index = input.count
            case .incomplete:
                replace(into: &output)
                index = input.count
            case .invalid(let length):
                replace(into: &output)
                index += length
            }
        }
        offset += output.count
        return output
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
    static func sequence(_ bytes: [UInt8], at index: Int) -> Sequence {
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

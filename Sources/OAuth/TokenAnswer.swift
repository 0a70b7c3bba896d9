import SystemSupport

/// What a token endpoint answered (RFC 6749 5.1 and 5.2): the top-level members of one JSON object, strings and
/// numbers kept, anything nested skipped. A token answer is a flat object of a few hundred bytes; a reader of
/// exactly that needs no JSON library in the daemon.
struct TokenAnswer {
    private(set) var strings: [String: String] = [:]
    private(set) var numbers: [String: Double] = [:]

    /// nil for anything that is not one JSON object (RFC 8259), or nests deeper than 8.
    init?(_ bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard reader.object(into: &self), reader.atEnd else { return nil }
    }

    private init() {}

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count
            }
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func object(into answer: inout TokenAnswer) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipSpace()
                guard let name = string(), take(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: "\"") {
                    guard let value = string() else { return false }
                    answer.strings[name] = value
                } else if let number = number() {
                    answer.numbers[name] = number
                } else if !skipValue(depth: 0) {
                    return false
                }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                                (0xDC00..<0xE000).contains(low)
                            else { return nil }
                            scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        text += Array(String(Character(unicode)).utf8)
                    default: return nil
                    }
                case 0x00..<0x20: return nil
                default: text.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = hexDigitValue(byte) else { return nil }
                value = value << 4 | UInt32(digit)
            }
            index += 4
            return value
        }

        mutating func number() -> Double? {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            return Double(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        /// true, false, null, an array or an object: read past, not kept.
        mutating func skipValue(depth: Int) -> Bool {
            skipSpace()
            guard depth < 8, index < bytes.count else { return false }
            for word in ["true", "false", "null"] where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return true
            }
            if bytes[index] == UInt8(ascii: "\"") { return string() != nil }
            if number() != nil { return true }
            let (open, close) =
                bytes[index] == UInt8(ascii: "[")
                ? (UInt8(ascii: "["), UInt8(ascii: "]"))
                : (UInt8(ascii: "{"), UInt8(ascii: "}"))
            guard take(open) else { return false }
            if take(close) { return true }
            repeat {
                if open == UInt8(ascii: "{") {
                    skipSpace()
                    guard string() != nil, take(UInt8(ascii: ":")) else { return false }
                }
                guard skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(close)
        }
    }
}

/// JSON as the WebDriver wire protocol carries it (RFC 8259): what the tests send to chromedriver and what it answers,
/// including the values of scripts run in the page. Our own few lines rather than Foundation's JSONSerialization,
/// whose `Any` on Linux does not tell a JSON `true` from the number 1.
public indirect enum WebDriverJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([WebDriverJSON])
    case object([String: WebDriverJSON])

    public subscript(key: String) -> WebDriverJSON? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    public subscript(index: Int) -> WebDriverJSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    public var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    public var number: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    public var array: [WebDriverJSON]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// The value written as JSON, object keys sorted (the same value always reads the same in a failure).
    public var text: String {
        var output = ""
        write(into: &output)
        return output
    }

    private func write(into output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value):
            // Whole numbers as integers: chromedriver takes timeouts and sizes as integers.
            if value.rounded() == value, abs(value) < 1e15 {
                output += String(Int64(value))
            } else {
                output += "\(value)"
            }
        case .string(let text): Self.quote(text, into: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(into: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.quote(key, into: &output)
                output += ":"
                members[key]?.write(into: &output)
            }
            output += "}"
        }
    }

    private static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    public struct ParseFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text`, which must be one JSON value and nothing more (whitespace aside).
    public static func parse(_ text: String) throws(ParseFailure) -> WebDriverJSON {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == parser.bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        func failure(_ what: String) -> ParseFailure {
            let context = String(decoding: bytes[position..<min(bytes.count, position + 40)], as: UTF8.self)
            return ParseFailure(description: "JSON: \(what) at byte \(position) (\(context))")
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws(ParseFailure) -> WebDriverJSON {
            // A page's script could answer with deep nesting; the tests have no use for more than this.
            guard depth < 64 else { throw failure("nested too deep") }
            skipSpace()
            guard position < bytes.count else { throw failure("a value expected") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: String, _ value: WebDriverJSON) throws(ParseFailure) -> WebDriverJSON {
            let expected = Array(word.utf8)
            guard bytes[position...].starts(with: expected) else { throw failure("\(word) expected") }
            position += expected.count
            return value
        }

        mutating func number() throws(ParseFailure) -> WebDriverJSON {
            let start = position
            let allowed = Set("+-0123456789.eE".utf8)
            while position < bytes.count, allowed.contains(bytes[position]) { position += 1 }
            guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else {
                position = start
                throw failure("a value expected")
            }
            return .number(value)
        }

        mutating func array(depth: Int) throws(ParseFailure) -> WebDriverJSON {
            position += 1
            var items: [WebDriverJSON] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw failure("] expected") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "]") { return .array(items) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw failure(", or ] expected") }
            }
        }

        mutating func object(depth: Int) throws(ParseFailure) -> WebDriverJSON {
            position += 1
            var members: [String: WebDriverJSON] = [:]
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw failure("a key expected")
                }
                let key = try string()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure(": expected") }
                position += 1
                members[key] = try value(depth: depth + 1)
                skipSpace()
                guard position < bytes.count else { throw failure("} expected") }
                position += 1
                if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[position - 1] == UInt8(ascii: ",") else { throw failure(", or } expected") }
            }
        }

        mutating func string() throws(ParseFailure) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var plainStart = position
            // Runs of plain bytes are decoded at once: a screenshot is a string of a million base64 characters.
            func flush(_ end: Int) {
                scalars.append(contentsOf: String(decoding: bytes[plainStart..<end], as: UTF8.self).unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flush(position)
                    position += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    position += 1
                    continue
                }
                flush(position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), bytes[position...].starts(with: Array("\\u".utf8)) {
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("a lone surrogate") }
                    scalars.append(scalar)
                default: throw failure("an unknown escape")
                }
                plainStart = position
            }
            throw failure("an unterminated string")
        }

        mutating func hex4() throws(ParseFailure) -> UInt32 {
            guard position + 4 <= bytes.count,
                let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { throw failure("4 hex digits expected") }
            position += 4
            return code
        }
    }
}

// No `ExpressibleByNilLiteral`: in an optional context a `nil` would become `.null`, a body where none was meant.
extension WebDriverJSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: WebDriverJSON...) { self = .array(elements) }

    public init(dictionaryLiteral elements: (String, WebDriverJSON)...) {
        self = .object(Dictionary(elements) { $1 })
    }
}

import TestSupport

/// A strict little JSON parser (RFC 8259), so the tests check the API's output as a client would read it: a
/// syntax error or an unescaped control character fails the parse, and strings come back decoded.
indirect enum TestJSON: Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([TestJSON])
    /// Keys in the order written.
    case object([(String, TestJSON)])

    static func == (left: TestJSON, right: TestJSON) -> Bool {
        switch (left, right) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    subscript(key: String) -> TestJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    subscript(index: Int) -> TestJSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.0)
    }

    static func parse(_ text: String) throws -> TestJSON {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.failure("trailing text") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ what: String) -> HTTPTestFailure {
            HTTPTestFailure(description: "JSON: \(what) at byte \(index)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw failure("expected \(literal)") }
                index += 1
            }
        }

        mutating func value() throws -> TestJSON {
            skipSpace()
            guard index < bytes.count else { throw failure("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [TestJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    items.append(try value())
                    skipSpace()
                    guard index < bytes.count else { throw failure("unclosed array") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return .array(items) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw failure("expected , or ]") }
                }
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, TestJSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    members.append((key, try value()))
                    skipSpace()
                    guard index < bytes.count else { throw failure("unclosed object") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw failure("expected , or }") }
                }
            default:
                let start = index
                while index < bytes.count, "-+.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw failure("unexpected byte \(bytes[index])") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func string() throws -> String {
            try expect("\"")
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard index < bytes.count else { throw failure("unclosed string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case 0..<0x20:
                    throw failure("unescaped control character \(byte)")
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { throw failure("unclosed escape") }
                    let escape = bytes[index]
                    index += 1
                    let simple: [UInt8: Unicode.Scalar] = [
                        UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/",
                        UInt8(ascii: "b"): "\u{8}", UInt8(ascii: "f"): "\u{C}", UInt8(ascii: "n"): "\n",
                        UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
                    ]
                    if let scalar = simple[escape] {
                        scalars.append(scalar)
                    } else if escape == UInt8(ascii: "u") {
                        guard index + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                            let scalar = Unicode.Scalar(code)
                        else { throw failure("bad \\u escape") }
                        index += 4
                        scalars.append(scalar)
                    } else {
                        throw failure("bad escape")
                    }
                default:
                    raw.append(byte)
                }
            }
        }
    }
}

/// Escaping of text values, RFC 6350 3.4 and RFC 2426 5:
/// > Backslashes, commas, semicolons and newlines must be escaped: `\\`, `\,`, `\;`, `\n` (or `\N`).
enum TextValue {
    /// Properties whose values are text with the escapes above. Other properties (URIs, base64, unknown `X-`
    /// properties) are kept exactly as written. (These name lists are arrays, not sets: every property of every
    /// card is looked up, and comparing a few short names is cheaper than hashing one.)
    static let textProperties: [String] = [
        "FN", "N", "NICKNAME", "ORG", "TITLE", "ROLE", "NOTE", "ADR", "LABEL", "CATEGORIES", "GENDER",
    ]
    /// Text properties whose value is a list of components separated by `;`.
    static let structuredProperties: [String] = ["N", "ADR", "ORG", "GENDER"]
    /// Text properties whose value is a list of items separated by `,`.
    static let listProperties: [String] = ["NICKNAME", "CATEGORIES"]

    /// The value with every escape other than the four (`\"`, `\'`, `\:` ... as Apple, Google and others write
    /// them) replaced by the character it escapes, and a lone backslash at the end kept as `\\`; nil when there is
    /// none. `repaired` lists each such escape once, in order, for the card's repairs.
    static func repairingEscapes(in raw: String) -> (value: String, repaired: [String])? {
        guard raw.containsByte(backslash) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(raw.utf8.count)
        var repaired: [String] = []
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == backslash else {
                result.append(byte)
                continue
            }
            guard let next = iterator.next() else {
                result += [backslash, backslash]
                if !repaired.contains("\\") { repaired.append("\\") }
                break
            }
            switch next {
            case backslash, UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "n"), UInt8(ascii: "N"):
                result += [backslash, next]
            default:
                // The escaped byte itself; a UTF-8 lead byte keeps its continuation bytes, which follow as usual.
                result.append(next)
                let shown = next < 0x80 ? "\\" + String(UnicodeScalar(next)) : "\\(non-ASCII)"
                if !repaired.contains(shown) { repaired.append(shown) }
            }
        }
        guard !repaired.isEmpty else { return nil }
        return (String(decoding: result, as: UTF8.self), repaired)
    }

    /// A URI value written with text escapes (`http\\://`, as Apple and Google write `URL`): a backslash, or a run
    /// of them, before `:`, `,` or `;` goes; other backslashes stay (a URI has none, but they are not ours to drop).
    /// The result has no such escape left, so it reads back the same. Nil when there is nothing to remove.
    static func unescapingURI(_ raw: String) -> (value: String, repaired: [String])? {
        guard raw.containsByte(backslash) else { return nil }
        let bytes = Array(raw.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var repaired: [String] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == backslash else {
                result.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, bytes[end] == backslash { end += 1 }
            if end < bytes.count, [UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: ";")].contains(bytes[end]) {
                let shown = "\\" + String(UnicodeScalar(bytes[end]))
                if !repaired.contains(shown) { repaired.append(shown) }
            } else {
                result += bytes[index..<end]
            }
            index = end
        }
        return repaired.isEmpty ? nil : (String(decoding: result, as: UTF8.self), repaired)
    }

    // The functions below work on UTF-8 bytes: every character they look at is ASCII, and iterating a String by
    // Character (grapheme clusters) made these the hottest code of an import (measured with perf).

    /// Splits on a separator that is not escaped; the pieces keep their escapes.
    static func split(_ raw: String, on separator: UInt8) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var escaped = false
        for byte in raw.utf8 {
            if escaped {
                escaped = false
            } else if byte == backslash {
                escaped = true
            } else if byte == separator {
                parts.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                continue
            }
            current.append(byte)
        }
        parts.append(String(decoding: current, as: UTF8.self))
        return parts
    }

    static func unescape(_ raw: String) -> String {
        guard raw.containsByte(backslash) else { return raw }
        var result: [UInt8] = []
        result.reserveCapacity(raw.utf8.count)
        var escaped = false
        for byte in raw.utf8 {
            if escaped {
                result.append(byte == UInt8(ascii: "n") || byte == UInt8(ascii: "N") ? newline : byte)
                escaped = false
            } else if byte == backslash {
                escaped = true
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    static func escape(_ text: String) -> String {
        let special: (UInt8) -> Bool = {
            $0 == backslash || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") || $0 == newline
                || $0 == UInt8(ascii: "\r")
        }
        guard text.containsByte(where: special) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case backslash, UInt8(ascii: ","), UInt8(ascii: ";"): result += [backslash, byte]
            case newline: result += [backslash, UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): continue
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The text without ASCII white space (base64 values, which some writers fold with extra spaces).
    static func removingWhitespace(_ text: String) -> String {
        guard text.containsAnyByte(of: whitespace) else { return text }
        return String(decoding: text.utf8.filter { !whitespace.contains($0) }, as: UTF8.self)
    }

    private static let whitespace: [UInt8] = [0x20, 0x09, 0x0D, 0x0A]

    static func isWhitespace(_ byte: UInt8) -> Bool { whitespace.contains(byte) }

    private static let backslash = UInt8(ascii: "\\")
    private static let newline = UInt8(ascii: "\n")

    /// The value with canonical escapes: what two writers that escape differently agree on.
    static func canonical(_ raw: String, property name: String) -> String {
        let structured = structuredProperties.contains(name)
        let list = listProperties.contains(name)
        // Most values have nothing to unescape or escape: then they are their canonical form, but for a structured
        // value's empty components at the end.
        let changes = { (byte: UInt8) in
            byte == backslash || byte == newline || byte == UInt8(ascii: "\r")
                || (byte == UInt8(ascii: ",") && !list) || (byte == UInt8(ascii: ";") && !structured)
        }
        if !raw.containsByte(where: changes) {
            guard structured else { return raw }
            var end = raw.utf8.endIndex
            while end > raw.utf8.startIndex, raw.utf8[raw.utf8.index(before: end)] == UInt8(ascii: ";") {
                end = raw.utf8.index(before: end)
            }
            return String(raw[..<end])
        }
        var components = structured ? split(raw, on: UInt8(ascii: ";")) : [raw]
        if structured {
            // `N:Lovelace;Ada;;;` and `N:Lovelace;Ada` say the same.
            while components.count > 1, components.last?.isEmpty == true { components.removeLast() }
        }
        return components.map { component in
            let items = list ? split(component, on: UInt8(ascii: ",")) : [component]
            return items.map { escape(unescape($0)) }.joined(separator: ",")
        }.joined(separator: ";")
    }
}

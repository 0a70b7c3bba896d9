/// Escaping of text values, RFC 6350 3.4 and RFC 2426 5:
/// > Backslashes, commas, semicolons and newlines must be escaped: `\\`, `\,`, `\;`, `\n` (or `\N`).
enum TextValue {
    /// Properties whose values are text with the escapes above. Other properties (URIs, base64, unknown `X-`
    /// properties) are kept exactly as written.
    static let textProperties: Set<String> = [
        "FN", "N", "NICKNAME", "ORG", "TITLE", "ROLE", "NOTE", "ADR", "LABEL", "CATEGORIES", "GENDER",
    ]
    /// Text properties whose value is a list of components separated by `;`.
    static let structuredProperties: Set<String> = ["N", "ADR", "ORG", "GENDER"]
    /// Text properties whose value is a list of items separated by `,`.
    static let listProperties: Set<String> = ["NICKNAME", "CATEGORIES"]

    /// The first escape that is not one of the four, as (offset in bytes, the character), or nil.
    static func badEscape(in raw: String) -> (offset: Int, character: Character)? {
        var iterator = raw.utf8.enumerated().makeIterator()
        while let (offset, byte) = iterator.next() {
            guard byte == UInt8(ascii: "\\") else { continue }
            guard let (_, next) = iterator.next() else { return (offset, "\\") }
            switch next {
            case UInt8(ascii: "\\"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "n"), UInt8(ascii: "N"):
                continue
            default:
                return (offset, Character(UnicodeScalar(next)))
            }
        }
        return nil
    }

    /// Splits on a separator that is not escaped; the pieces keep their escapes.
    static func split(_ raw: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in raw {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == separator {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    static func unescape(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var result = ""
        var escaped = false
        for character in raw {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ",": result += "\\,"
            case ";": result += "\\;"
            case "\n", "\r\n": result += "\\n"
            case "\r": continue
            default: result.append(character)
            }
        }
        return result
    }

    /// The value with canonical escapes: what two writers that escape differently agree on.
    static func canonical(_ raw: String, property name: String) -> String {
        let structured = structuredProperties.contains(name)
        let list = listProperties.contains(name)
        var components = structured ? split(raw, on: ";") : [raw]
        if structured {
            // `N:Lovelace;Ada;;;` and `N:Lovelace;Ada` say the same.
            while components.count > 1, components.last?.isEmpty == true { components.removeLast() }
        }
        return components.map { component in
            let items = list ? split(component, on: ",") : [component]
            return items.map { escape(unescape($0)) }.joined(separator: ",")
        }.joined(separator: ";")
    }
}

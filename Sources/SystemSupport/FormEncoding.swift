/// `application/x-www-form-urlencoded`, as the WHATWG URL standard has it: `name=value` pairs joined by `&`, `+`
/// for a space, `%XX` for a byte. The status page's forms, an OAuth token request and the query a person pastes
/// back after signing in all use it.
public enum FormEncoding {
    /// The fields, every value escaped (``escape(_:)``).
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Everything but the unreserved characters percent-encoded (RFC 3986 2.3), a space as `%20`: what every
    /// reader takes.
    public static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The fields of a form or a query. Strict where it matters: the decoded bytes must be UTF-8, a name may
    /// appear once and not be empty, and there are at most `fieldLimit` fields; else nil. An answer that says two
    /// things is read neither way.
    public static func decode(_ bytes: some Collection<UInt8>, fieldLimit: Int = 32) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard fields.count < fieldLimit else { return nil }
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), !name.isEmpty, fields[name] == nil,
                let value = unescape(parts.count > 1 ? parts[1] : pair[pair.endIndex...])
            else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func unescape(_ bytes: some Collection<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexDigitValue),
                    let low = iterator.next().flatMap(hexDigitValue)
                else {
                    return nil
                }
                decoded.append(high << 4 | low)
            default: decoded.append(byte)
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }
}

/// A hex digit's value; nil for any other byte.
public func hexDigitValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

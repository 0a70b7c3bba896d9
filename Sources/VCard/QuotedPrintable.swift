/// vCard 2.1 value encodings (quoted-printable, RFC 2045 6.7) and character sets, as old phones and Outlook write
/// them. Everything read is turned into UTF-8.
enum QuotedPrintable {
    /// Whether the property part of a raw line (before the first `:`) asks for quoted-printable, so that its soft
    /// line breaks must be joined before parsing.
    static func isDeclared(in line: [UInt8]) -> Bool {
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let keyword = Array("QUOTED-PRINTABLE".utf8)
        guard colon >= keyword.count else { return false }
        // An ASCII case fold byte by byte: this runs for every line read, so no String is made.
        return (0...(colon - keyword.count)).contains { start in
            zip(line[start..<(start + keyword.count)], keyword).allSatisfy { $0 & 0xDF == $1 & 0xDF }
        }
    }

    /// Decodes `=XX` escapes; a malformed escape is kept literally, as RFC 2045 advises a robust decoder to do.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "="), index + 2 < bytes.endIndex,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(byte)
                index += 1
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Text in the named character set, or nil when the bytes are not valid in it or the set is not supported.
    static func string(_ bytes: some Collection<UInt8>, charset: String?) -> String? {
        switch charset?.uppercased() {
        case nil, "UTF-8", "UTF8", "US-ASCII", "ASCII":
            return String(validating: bytes, as: UTF8.self)
        case "ISO-8859-1", "ISO8859-1", "LATIN1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case "WINDOWS-1252", "CP1252":
            return String(String.UnicodeScalarView(bytes.map(windows1252)))
        default:
            return nil
        }
    }

    /// Windows-1252 is ISO-8859-1 but for 0x80-0x9F, where Outlook puts typographic quotes, dashes and the euro.
    private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let high: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
            0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161,
            0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
        guard byte >= 0x80, byte <= 0x9F, let scalar = Unicode.Scalar(high[Int(byte) - 0x80]) else {
            return Unicode.Scalar(byte)
        }
        return scalar
    }
}

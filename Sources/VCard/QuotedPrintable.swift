/// vCard 2.1 value encodings (quoted-printable, RFC 2045 6.7) and character sets, as old phones and Outlook write
/// them. The decoded bytes go to `Charset` to become text.
enum QuotedPrintable {
    /// Whether the property part of a raw line (before the first `:`) asks for quoted-printable, so that its soft
    /// line breaks must be joined before parsing: `;ENCODING=QUOTED-PRINTABLE` or a bare `;QUOTED-PRINTABLE`, in
    /// any letter case. The word elsewhere (a parameter `X-NOTE=QUOTED-PRINTABLE`) asks for nothing, as
    /// `CardParser` decodes only these two.
    static func isDeclared(in line: [UInt8]) -> Bool {
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        guard colon >= keyword.count else { return false }
        // An ASCII case fold byte by byte: this runs for every line read, so no String is made.
        return (0...(colon - keyword.count)).contains { start in
            guard matches(line, at: start, keyword) else { return false }
            let end = start + keyword.count
            guard end == colon || line[end] == UInt8(ascii: ";") || line[end] == UInt8(ascii: ",") else {
                return false
            }
            if start > 0, line[start - 1] == UInt8(ascii: ";") { return true }
            return start >= encoding.count + 1 && matches(line, at: start - encoding.count, encoding)
                && line[start - encoding.count - 1] == UInt8(ascii: ";")
        }
    }

    private static let keyword = Array("QUOTED-PRINTABLE".utf8)
    private static let encoding = Array("ENCODING=".utf8)

    private static func matches(_ line: [UInt8], at start: Int, _ word: [UInt8]) -> Bool {
        start + word.count <= line.count
            && zip(line[start..<(start + word.count)], word).allSatisfy { $0 & 0xDF == $1 & 0xDF }
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
}

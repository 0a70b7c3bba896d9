/// Data embedded in a property's value (a photo, a logo, a sound, a key): inline base64 (vCard 3.0's `ENCODING=b`)
/// or a `data:` URI (4.0). Read a piece at a time where the value is large (`Property.forEachValuePiece`), never as
/// a String of it whole; what is decoded is bounded by the caller.
public struct BinaryValue: Sendable {
    /// Where the data starts in the value (after a `data:` URI's header), and whether it is base64.
    public var offset: Int
    public var base64: Bool

    /// The most a photo decodes to here: a hostile card's photo cannot make the daemon (20 MB in all) hold more.
    public static let photoLimit = 4 << 20

    /// How `property` embeds data; nil when its value is no embedded data (a URL, text).
    public init?(_ property: Property) {
        let encodings = property.parameterValues("ENCODING").map { $0.lowercased() }
        if encodings.contains("b") || encodings.contains("base64") {
            (offset, base64) = (0, true)
            return
        }
        let head = Self.head(of: property, 1024)
        guard head.count >= 5, String(decoding: head.prefix(5), as: UTF8.self).lowercased() == "data:",
            let comma = head.firstIndex(of: UInt8(ascii: ","))
        else { return nil }
        var header = head[..<comma]
        // Some writers escape the comma as in text (`base64\,`).
        if header.last == UInt8(ascii: "\\") { header = header.dropLast() }
        offset = comma + 1
        base64 = String(decoding: header, as: UTF8.self).lowercased().hasSuffix(";base64")
    }

    /// The first `count` bytes of the value (all of a shorter one).
    public static func head(of property: Property, _ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        property.forEachValuePiece { piece in
            guard result.count < count else { return }
            result += piece.prefix(count - result.count)
        }
        return result
    }

    /// The number of bytes the data decodes to, counted a piece at a time.
    public func decodedCount(of property: Property) -> Int {
        var position = 0
        var symbols = 0
        var percents = 0
        let offset = self.offset
        let base64 = self.base64
        property.forEachValuePiece { piece in
            for byte in piece {
                defer { position += 1 }
                guard position >= offset else { continue }
                if base64 {
                    if Self.sextet(byte) != nil { symbols += 1 }
                } else {
                    symbols += 1
                    if byte == UInt8(ascii: "%") { percents += 1 }
                }
            }
        }
        return base64 ? symbols * 3 / 4 : max(0, symbols - 2 * percents)
    }

    /// The data's bytes, when they are base64 that decodes to at most `limit` bytes; nil for anything else (data
    /// that is not base64, not valid base64, or larger).
    public func decoded(from property: Property, limit: Int) -> [UInt8]? {
        guard base64 else { return nil }
        // A value whose base64 would decode to more than `limit` is refused before a byte is decoded.
        guard (property.valueCount - offset) / 4 * 3 <= limit + limit / 8 + 3 else { return nil }
        var output: [UInt8] = []
        var decoder = Base64Decoder()
        var position = 0
        var failed = false
        let offset = self.offset
        property.forEachValuePiece { piece in
            guard !failed else { return }
            var start = 0
            if position < offset { start = min(piece.count, offset - position) }
            position += piece.count
            for byte in piece[start...] {
                guard decoder.take(byte, into: &output), output.count <= limit else {
                    failed = true
                    return
                }
            }
        }
        guard !failed, decoder.finish(into: &output), output.count <= limit else { return nil }
        return output
    }

    /// The first bytes the data decodes to (at most 12, enough for every signature `ImageType` knows).
    public func decodedHead(of property: Property) -> [UInt8] {
        guard base64 else { return [] }
        var decoder = Base64Decoder()
        var output: [UInt8] = []
        for byte in Self.head(of: property, offset + 64).dropFirst(offset) {
            guard decoder.take(byte, into: &output), output.count < 12 else { break }
        }
        return Array(output.prefix(12))
    }

    /// The value of a base64 symbol (the URL-safe alphabet too); nil for anything else.
    public static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }

    /// A 64-bit FNV-1a digest of the value, read in place: whether two versions' photos differ, without holding
    /// either.
    public static func fingerprint(of property: Property) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        property.forEachValuePiece { piece in
            for byte in piece {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        return hash
    }
}

/// RFC 4648 base64, a byte at a time: white space is skipped, padding ends the data, anything else is refused.
public struct Base64Decoder {
    private var accumulator: UInt32 = 0
    private var bits = 0
    private var ended = false

    /// Takes one byte of the text; false when it cannot be base64.
    public init() {}

    public mutating func take(_ byte: UInt8, into output: inout [UInt8]) -> Bool {
        if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A { return true }
        if byte == UInt8(ascii: "=") {
            ended = true
            return true
        }
        guard !ended, let value = BinaryValue.sextet(byte) else { return false }
        accumulator = accumulator << 6 | UInt32(value)
        bits += 6
        if bits >= 8 {
            bits -= 8
            output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            accumulator &= (1 << UInt32(bits)) - 1
        }
        return true
    }

    /// Whether what was taken ends as base64 may (a lone symbol at the end is no byte).
    public func finish(into output: inout [UInt8]) -> Bool { bits < 6 }
}

/// The image types a browser may be given, told by their first bytes, never by what a card claims.
public enum ImageType {
    /// `image/jpeg`, `image/png`, `image/gif` or `image/webp`; nil for anything else (SVG, HTML, garbage).
    public static func of(_ bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// `JPEG`, `PNG` ... for a person: the subtype in upper case.
    public static func word(_ mediaType: String) -> String {
        String(mediaType.dropFirst("image/".count)).uppercased()
    }
}

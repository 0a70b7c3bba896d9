#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns the bytes of a value into text, whatever its writer did: UTF-8 as it should be, a legacy `CHARSET` (vCard
/// 2.1 and phones' 3.0: SHIFT_JIS, ISO-8859-x, Windows-125x, GB2312, BIG5, KOI8-R ...) through glibc's iconv, and
/// text that is not UTF-8 and names no charset as Windows-1252. It never fails: what it had to guess is said in
/// `Decoded.note`, for the card's repairs.
enum Charset {
    struct Decoded {
        var text: String
        /// Why the text is not simply the bytes as UTF-8, or nil when it is.
        var note: Note?
    }

    enum Note: Equatable {
        /// A declared legacy charset, decoded (the name as written).
        case decoded(String)
        /// Not UTF-8, no charset named (or UTF-8 named): read as Windows-1252.
        case notUTF8
        /// A charset glibc does not know, or bytes that are not valid in it: read as UTF-8 or else Windows-1252.
        case unusable(String, readAs: String)
    }

    /// At most this many bytes of output are converted per iconv call; the text grows by that much at a time.
    static let chunkSize = 4096

    static func decode(_ bytes: some Collection<UInt8>, charset declared: String?) -> Decoded {
        let name = declared.map(canonicalName)
        switch name {
        case nil, "UTF-8", "UTF8", "US-ASCII", "ASCII":
            if let text = String(validating: bytes, as: UTF8.self) { return Decoded(text: text, note: nil) }
            return Decoded(text: windows1252(bytes), note: .notUTF8)
        case "ISO-8859-1", "ISO8859-1", "LATIN1", "ISO_8859-1", "WINDOWS-1252", "CP1252":
            // Kept in Swift: the commonest legacy sets. ISO-8859-1 is read as Windows-1252, as browsers do (WHATWG
            // Encoding): writers that say Latin-1 put Windows quotes and the euro at 0x80-0x9F, never C1 controls.
            return Decoded(text: windows1252(bytes), note: note(declared))
        case let name?:
            if bytes.allSatisfy({ $0 < 0x80 }), let text = String(validating: bytes, as: UTF8.self) {
                return Decoded(text: text, note: nil)  // ASCII reads the same in every charset phones use
            }
            for candidate in [name] + (supersets[name] ?? []) {
                if let text = iconvDecode(bytes, from: candidate) { return Decoded(text: text, note: note(declared)) }
            }
            if let text = String(validating: bytes, as: UTF8.self) {
                return Decoded(text: text, note: .unusable(declared ?? name, readAs: "UTF-8"))
            }
            return Decoded(text: windows1252(bytes), note: .unusable(declared ?? name, readAs: "Windows-1252"))
        }
    }

    private static func note(_ declared: String?) -> Note? {
        declared.map { .decoded($0) }
    }

    /// Upper case, without quotes or spaces, with the aliases phones write mapped to the names glibc knows.
    static func canonicalName(_ raw: String) -> String {
        let trimmed = raw.uppercased().filter { $0 != "\"" && $0 != " " }
        return aliases[trimmed] ?? trimmed
    }

    private static let aliases: [String: String] = [
        "X-SJIS": "SHIFT_JIS", "SJIS": "SHIFT_JIS", "SHIFT-JIS": "SHIFT_JIS", "X-SHIFT_JIS": "SHIFT_JIS",
        "WINDOWS-31J": "CP932", "MS932": "CP932", "CSSHIFTJIS": "SHIFT_JIS",
        "X-EUC-JP": "EUC-JP", "EUCJP": "EUC-JP", "GBK": "GBK", "X-GBK": "GBK", "EUCKR": "EUC-KR",
        "BIG-5": "BIG5", "X-MAC-ROMAN": "MACINTOSH", "MACROMAN": "MACINTOSH",
    ]

    /// Writers that name a set but use the vendor's extension of it (Japanese phones write CP932 characters such
    /// as circled digits under SHIFT_JIS): when the named set refuses the bytes, its superset is tried.
    private static let supersets: [String: [String]] = [
        "SHIFT_JIS": ["CP932"], "GB2312": ["GB18030"], "GBK": ["GB18030"], "EUC-CN": ["GB18030"],
        "BIG5": ["BIG5-HKSCS"], "EUC-KR": ["CP949"],
    ]

    /// The bytes converted from `charset` to UTF-8 by glibc's iconv, or nil when glibc does not know the set or the
    /// bytes are not valid in it. Output goes through a fixed buffer of `chunkSize` bytes.
    static func iconvDecode(_ bytes: some Collection<UInt8>, from charset: String) -> String? {
        guard let descriptor = iconv_open("UTF-8", charset), Int(bitPattern: descriptor) != -1 else { return nil }
        defer { iconv_close(descriptor) }
        var input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 2)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        let ok = input.withUnsafeMutableBufferPointer { inputBuffer -> Bool in
            var inPointer = inputBuffer.baseAddress.map {
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
            }
            var inLeft = inputBuffer.count
            var flushing = false
            while true {
                let (status, error, produced) = chunk.withUnsafeMutableBufferPointer { outputBuffer in
                    var outPointer = outputBuffer.baseAddress.map {
                        UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
                    }
                    var outLeft = outputBuffer.count
                    // With no input left, one more call writes what a stateful set (ISO-2022-JP) still holds.
                    let status =
                        flushing
                        ? iconv(descriptor, nil, nil, &outPointer, &outLeft)
                        : iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                    return (status, status == -1 ? errno : 0, outputBuffer.count - outLeft)
                }
                output += chunk[0..<produced]
                if status == -1 {
                    guard error == E2BIG else { return false }  // EILSEQ, EINVAL: not valid in this set
                    continue
                }
                if flushing { break }
                if inLeft == 0 { flushing = true }
            }
            return true
        }
        guard ok else { return nil }
        return String(validating: output, as: UTF8.self)
    }

    /// Windows-1252 is ISO-8859-1 but for 0x80-0x9F, where Windows puts typographic quotes, dashes and the euro.
    /// Every byte decodes (the five unassigned ones as the C1 controls of the same number), so this never fails.
    static func windows1252(_ bytes: some Collection<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map(windows1252Scalar)))
    }

    private static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar {
        guard byte >= 0x80, byte <= 0x9F, let scalar = Unicode.Scalar(windows1252High[Int(byte) - 0x80]) else {
            return Unicode.Scalar(byte)
        }
        return scalar
    }

    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161,
        0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
}

/// A streaming conversion to UTF-8 through iconv, for a whole file in another encoding (UTF-16 with a byte order
/// mark, as Windows writes "Unicode" text). Input comes in chunks; a sequence cut at the end of one chunk is kept for
/// the next, and a unit that is not valid becomes U+FFFD, so the stream always goes on.
final class Transcoder {
    private let descriptor: iconv_t
    /// The start of a sequence that the last chunk cut off (at most a few bytes).
    private var pending: [UInt8] = []

    init?(from charset: String) {
        guard let descriptor = iconv_open("UTF-8", charset), Int(bitPattern: descriptor) != -1 else { return nil }
        self.descriptor = descriptor
    }

    deinit { iconv_close(descriptor) }

    /// The UTF-8 for `chunk` (and what was pending); `final` flushes what is left.
    func convert(_ chunk: ArraySlice<UInt8>, final: Bool) -> [UInt8] {
        var input = pending + chunk
        pending = []
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 2)
        var buffer = [UInt8](repeating: 0, count: Charset.chunkSize)
        input.withUnsafeMutableBufferPointer { inputBuffer in
            var inPointer = inputBuffer.baseAddress.map {
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
            }
            var inLeft = inputBuffer.count
            while inLeft > 0 {
                let (status, error, produced) = buffer.withUnsafeMutableBufferPointer { outputBuffer in
                    var outPointer = outputBuffer.baseAddress.map {
                        UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
                    }
                    var outLeft = outputBuffer.count
                    let status = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                    return (status, status == -1 ? errno : 0, outputBuffer.count - outLeft)
                }
                output += buffer[0..<produced]
                guard status == -1 else { continue }
                switch error {
                case E2BIG:
                    continue
                case EINVAL where !final:
                    // Cut off at the end of the chunk: the rest comes with the next one.
                    pending = Array(
                        UnsafeBufferPointer(
                            start: inPointer.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                            count: inLeft))
                    inLeft = 0
                default:
                    // Not valid (or cut off at the very end): U+FFFD for one 2-byte unit, and on.
                    output += [0xEF, 0xBF, 0xBD]
                    let skip = min(2, inLeft)
                    inPointer = inPointer.map { $0 + skip }
                    inLeft -= skip
                }
            }
        }
        return output
    }
}

@available(*, unavailable) extension Transcoder: Sendable {}

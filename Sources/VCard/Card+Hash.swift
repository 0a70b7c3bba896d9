import CCrypto

extension Card {
    /// Properties that change without the contact changing: the writing program, the revision stamp, the format
    /// version (the same contact is written as 3.0 to one server and 4.0 to another), and the identity itself (two
    /// cards that differ only in UID are duplicates, not different people).
    static let volatileProperties: [String] = ["PRODID", "REV", "UID", "VERSION"]

    /// Parameters whose values are case-insensitive keywords (RFC 6350 5).
    private static let keywordParameters: [String] = ["TYPE", "ENCODING", "VALUE", "CHARSET", "PREF"]

    /// Lowercase hex SHA-256 of the normalised card. Equal for two cards that differ only in `PRODID`, `REV`,
    /// `UID`, `VERSION`, line folding, property or parameter order, letter case of names, escaping, or the 4.0 or
    /// 3.0 form of a property (`Property.version3Form`: an inline photo as `ENCODING=b` or a `data:` URI, `KIND` or
    /// `X-ADDRESSBOOKSERVER-KIND`, `PREF=1` or `TYPE=pref` ...): every property is read in its 3.0 form, so that a
    /// 4.0 card and the 3.0 card written from it for a 3.0 server hash the same. Different for any other change.
    public var contentHash: String {
        if let opaqueText { return sha256Hex(Array(("opaque\n" + opaqueText).utf8)) }
        // Every line into one buffer, each a range of it (no String a line), sorted as their Strings would sort,
        // then hashed joined by LF as they are: not copied into one text first (a photo is tens of KB).
        var text: [UInt8] = []
        var lines: [Range<Int>] = []
        lines.reserveCapacity(properties.count)
        for property in properties { Self.appendNormalisedLines(property, to: &text, lines: &lines) }
        var digest = SHA256Digest()
        text.withUnsafeBufferPointer { bytes in
            let sorted = lines.sorted { Self.sortsBefore(bytes[$0], bytes[$1]) }
            for (index, line) in sorted.enumerated() {
                if index > 0 { digest.update("\n") }
                digest.update(UnsafeBufferPointer(rebasing: bytes[line]))
            }
        }
        return digest.hex()
    }

    /// The normalised lines the hash is made of, as text, in the card's order: what `changes(to:)` compares.
    func normalisedLines() -> [String] {
        guard opaqueText == nil else { return [] }
        var text: [UInt8] = []
        var lines: [Range<Int>] = []
        for property in properties { Self.appendNormalisedLines(property, to: &text, lines: &lines) }
        return lines.map { String(decoding: text[$0], as: UTF8.self) }
    }

    /// Whether line `a` sorts before line `b` as their Strings do (Unicode canonical order): by their bytes where
    /// they first differ in an ASCII character that no combining mark follows, which is the same; else as Strings.
    static func sortsBefore(_ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let common = min(a.count, b.count)
        var offset = 0
        while offset < common, a[a.startIndex + offset] == b[b.startIndex + offset] { offset += 1 }
        let isASCII = { (line: Slice<UnsafeBufferPointer<UInt8>>, offset: Int) in
            offset >= line.count || line[line.startIndex + offset] < 0x80
        }
        if offset == common {
            if a.count == b.count { return false }
            // One is the other and more: shorter first, unless what follows may combine with what came before.
            if isASCII(a, offset), isASCII(b, offset) { return a.count < b.count }
        } else if isASCII(a, offset), isASCII(a, offset + 1), isASCII(b, offset), isASCII(b, offset + 1) {
            return a[a.startIndex + offset] < b[b.startIndex + offset]
        }
        return String(decoding: a, as: UTF8.self) < String(decoding: b, as: UTF8.self)
    }

    /// One line per property; a list property (NICKNAME, CATEGORIES) one line per item, since `NICKNAME:a,b` and two
    /// NICKNAME lines say the same (Radicale keeps only the first item of the list form, so that form is not sent
    /// there).
    private static func appendNormalisedLines(_ original: Property, to text: inout [UInt8], lines: inout [Range<Int>]) {
        let property = original.version3Form() ?? original
        // `_` is no name character (RFC 6350 3.3); Radicale writes `X-WAB-SPOUSE_NAME` back as `X-WAB-SPOUSE-NAME`.
        var name = property.name.uppercasedIfNeeded
        if name.containsByte(UInt8(ascii: "_")) { name = name.replacing("_", with: "-") }
        guard !volatileProperties.contains(name) else { return }
        // Parameters by upper-cased name, in the order first seen; written sorted by name. Most properties have
        // one or none, so a list, not a dictionary.
        var merged: [(key: String, values: [String])] = []
        for parameter in property.parameters {
            let key = parameter.name.uppercasedIfNeeded
            var values = parameter.values.map(Self.parameterText)
            // `TYPE="home,internet"` and `TYPE=home;TYPE=internet` (Cyrus writes the second for the first).
            // (`split` drops empty pieces, so an empty value goes too.)
            if key == "TYPE", values.contains(where: { $0.isEmpty || $0.containsByte(UInt8(ascii: ",")) }) {
                values = values.flatMap { $0.split(separator: ",").map(String.init) }
            }
            if keywordParameters.contains(key) { values = values.map(\.lowercasedIfNeeded) }
            if key == "ENCODING" { values = values.map { $0 == "base64" ? "b" : $0 } }
            if let index = merged.firstIndex(where: { $0.key == key }) {
                merged[index].values += values
            } else {
                merged.append((key, values))
            }
        }
        let binary = merged.first { $0.key == "ENCODING" }?.values == ["b"]
        var value: String
        if let large = Self.digestedValue(property, binary: binary) {
            value = large
        } else if binary {
            value = TextValue.removingWhitespace(property.value)
            if value.utf8.count > digestedValueBytes { value = Self.digestLine(value) }
        } else if TextValue.textProperties.contains(name) {
            value = TextValue.canonical(property.value, property: name)
        } else {
            // Any other value is compared with `\;`, `\,` and `\:` read as the character: servers escape the
            // separators of values they treat as text (an X- property, a 3.0 SOUND in a phone's reading of a name).
            value =
                property.value.containsByte(UInt8(ascii: "\\"))
                ? property.value.replacing("\\;", with: ";").replacing("\\,", with: ",").replacing("\\:", with: ":")
                : property.value
        }
        guard !value.isEmpty else { return }
        var head: [UInt8] = []
        if let group = property.group {
            head += group.lowercased().utf8
            head.append(UInt8(ascii: "."))
        }
        head += name.utf8
        if merged.count > 1 { merged.sort { $0.key < $1.key } }
        for (key, values) in merged {
            head.append(UInt8(ascii: ";"))
            head += key.utf8
            head.append(UInt8(ascii: "="))
            for (index, value) in (key == "TYPE" ? Array(Set(values)).sorted() : values).enumerated() {
                if index > 0 { head.append(UInt8(ascii: ",")) }
                head.append(UInt8(ascii: "\""))
                head += value.utf8
                head.append(UInt8(ascii: "\""))
            }
        }
        let items = TextValue.listProperties.contains(name) ? TextValue.split(value, on: UInt8(ascii: ",")) : [value]
        for item in items where !item.isEmpty {
            let start = text.count
            text += head
            text.append(UInt8(ascii: ":"))
            text += item.utf8
            lines.append(start..<text.count)
        }
    }
}

extension Card {
    /// A value longer than this (base64 without its white space, else as written) is hashed as `sha256:` and the
    /// SHA-256 of its bytes, which `appendNormalisedLines` gets without holding it: no card could hold such a line
    /// before values were spooled, so no stored hash changes.
    static let digestedValueBytes = 1 << 20

    /// The normalised value of a spooled property (`Property.large`): its digest (`digestedValueBytes`), or, for a
    /// shorter one, its bytes (base64 without white space) as a String; nil for a value held in memory.
    fileprivate static func digestedValue(_ property: Property, binary: Bool) -> String? {
        guard let large = property.large else { return nil }
        var digest = SHA256Digest()
        var count = 0
        var short: [UInt8] = []
        large.forEachPiece { piece in
            let bytes = piece.bindMemory(to: UInt8.self)
            let kept = binary ? Array(bytes.lazy.filter { !TextValue.isWhitespace($0) }) : Array(bytes)
            kept.withUnsafeBufferPointer { digest.update($0) }
            count += kept.count
            if count <= digestedValueBytes { short += kept }
        }
        if count > digestedValueBytes { return "sha256:" + digest.hex() }
        // A shorter value that is not base64 is read in memory, as any other (escapes, text).
        return binary ? String(decoding: short, as: UTF8.self) : nil
    }

    fileprivate static func digestLine(_ value: String) -> String {
        var digest = SHA256Digest()
        digest.update(value)
        return "sha256:" + digest.hex()
    }

    /// A parameter value as the text it stands for: RFC 6868's `^n`, `^'` and `^^`, and the `\n` that 3.0 writers
    /// use, read alike (Cyrus writes a LABEL's line break one way, Apple the other).
    fileprivate static func parameterText(_ value: String) -> String {
        guard value.containsByte(where: { $0 == UInt8(ascii: "^") || $0 == UInt8(ascii: "\\") }) else { return value }
        // Unicode scalars, not Characters: a combining mark after the letter would hide it in one Character.
        var result = String.UnicodeScalarView()
        var scalars = value.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "^" || scalar == "\\" else {
                result.append(scalar)
                continue
            }
            switch (scalar, scalars.next()) {
            case ("^", "n"?), ("\\", "n"?), ("\\", "N"?): result.append("\n")
            case ("^", "'"?): result.append("\"")
            case ("^", "^"?): result.append("^")
            case (let first, let next):
                result.append(first)
                next.map { result.append($0) }
            }
        }
        return String(result)
    }
}

/// Lowercase hex SHA-256 through libcrypto's low-level interface (see Sources/CCrypto/shim.h for why not EVP).
func sha256Hex(_ bytes: [UInt8]) -> String {
    var digest = SHA256Digest()
    bytes.withUnsafeBufferPointer { digest.update($0) }
    return digest.hex()
}

/// SHA-256 of text fed in parts. SHA-256 of bytes in memory cannot fail for any input: a failure means libcrypto
/// itself is broken.
struct SHA256Digest {
    private var context = SHA256_CTX()

    init() {
        precondition(SHA256_Init(&context) == 1, "libcrypto SHA-256 failed")
    }

    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(SHA256_Update(&context, bytes.baseAddress, bytes.count) == 1, "libcrypto SHA-256 failed")
    }

    mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update($0) }
    }

    mutating func hex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        precondition(SHA256_Final(&digest, &context) == 1, "libcrypto SHA-256 failed")
        return hexString(digest)
    }
}

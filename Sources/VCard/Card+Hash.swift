import CCrypto

extension Card {
    /// Properties that change without the contact changing: the writing program, the revision stamp, the format
    /// version (the same contact is written as 3.0 to one server and 4.0 to another), and the identity itself (two
    /// cards that differ only in UID are duplicates, not different people).
    static let volatileProperties: Set<String> = ["PRODID", "REV", "UID", "VERSION"]

    /// Parameters whose values are case-insensitive keywords (RFC 6350 5).
    private static let keywordParameters: Set<String> = ["TYPE", "ENCODING", "VALUE", "CHARSET", "PREF"]

    /// Lowercase hex SHA-256 of the normalised card. Equal for two cards that differ only in `PRODID`, `REV`,
    /// `UID`, `VERSION`, line folding, property or parameter order, letter case of names, escaping, or the way an
    /// inline photo is written (3.0 `ENCODING=b` or a 4.0 `data:` URI); different for any other change.
    public var contentHash: String {
        if let opaqueText { return sha256Hex(Array(("opaque\n" + opaqueText).utf8)) }
        let lines = properties.compactMap(Self.normalisedLine).sorted()
        return sha256Hex(Array(lines.joined(separator: "\n").utf8))
    }

    private static func normalisedLine(_ original: Property) -> String? {
        let property = original.inlineMediaAsVersion3() ?? original
        let name = property.name.uppercased()
        guard !volatileProperties.contains(name) else { return nil }
        var merged: [String: [String]] = [:]
        for parameter in property.parameters {
            let key = parameter.name.uppercased()
            let values = keywordParameters.contains(key) ? parameter.values.map { $0.lowercased() } : parameter.values
            merged[key, default: []] += values.map { key == "ENCODING" && $0 == "base64" ? "b" : $0 }
        }
        let binary = merged["ENCODING"] == ["b"]
        let value: String
        if binary {
            value = TextValue.removingWhitespace(property.value)
        } else if TextValue.textProperties.contains(name) {
            value = TextValue.canonical(property.value, property: name)
        } else {
            value = property.value
        }
        guard !value.isEmpty else { return nil }
        var line = property.group.map { $0.lowercased() + "." } ?? ""
        line += name
        for key in merged.keys.sorted() {
            var values = merged[key] ?? []
            if key == "TYPE" { values = Array(Set(values)).sorted() }
            line += ";" + key + "=" + values.map { "\"" + $0 + "\"" }.joined(separator: ",")
        }
        return line + ":" + value
    }
}

/// Lowercase hex SHA-256 through libcrypto's low-level interface (see Sources/CCrypto/shim.h for why not EVP).
func sha256Hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    var context = SHA256_CTX()
    let ok = bytes.withUnsafeBufferPointer { input in
        SHA256_Init(&context) == 1 && SHA256_Update(&context, input.baseAddress, input.count) == 1
            && SHA256_Final(&digest, &context) == 1
    }
    // SHA-256 of bytes in memory cannot fail for any input; a failure means libcrypto itself is broken.
    precondition(ok, "libcrypto SHA-256 failed")
    return hexString(digest)
}

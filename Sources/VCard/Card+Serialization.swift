extension Card {
    /// The card as vCard text: CRLF line ends, lines folded at 75 octets (RFC 6350 3.2), never inside a UTF-8
    /// sequence. A card read from canonical text serialises back to the same bytes.
    public func serialized() -> String {
        if let opaqueText { return opaqueText }
        var output: [UInt8] = []
        output.reserveCapacity(256)
        output += Array("BEGIN:VCARD\r\n".utf8)
        for property in properties {
            Self.appendFolded(property.contentLine(), to: &output)
        }
        output += Array("END:VCARD\r\n".utf8)
        return String(decoding: output, as: UTF8.self)
    }

    /// > Lines of text SHOULD NOT be longer than 75 octets, excluding the line break. (RFC 6350 3.2)
    /// A continuation line starts with one space, which counts.
    static func appendFolded(_ line: String, to output: inout [UInt8]) {
        let bytes = Array(line.utf8)
        var start = 0
        var limit = 75
        while bytes.count - start > limit {
            var end = start + limit
            while end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // back off a continuation byte
            output += bytes[start..<end]
            output += [0x0D, 0x0A, 0x20]
            start = end
            limit = 74
        }
        output += bytes[start...]
        output += [0x0D, 0x0A]
    }
}

extension Property {
    /// `[group.]NAME;PARAM=a,b:value`, unfolded. Parameter values are quoted only when they must be.
    func contentLine() -> String {
        var line = group.map { $0 + "." } ?? ""
        line += name
        for parameter in parameters {
            line += ";" + parameter.name
            if parameter.values.isEmpty { continue }
            line += "=" + parameter.values.map(Self.quotedIfNeeded).joined(separator: ",")
        }
        line += ":" + value
        return line
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        value.contains(where: { $0 == "," || $0 == ";" || $0 == ":" }) ? "\"" + value + "\"" : value
    }
}

import SystemSupport

extension Card {
    /// The card as vCard text: CRLF line ends, lines folded at 75 octets (RFC 6350 3.2), never inside a UTF-8
    /// sequence. A card read from canonical text serialises back to the same bytes.
    public func serialized() -> String {
        if let opaqueText { return opaqueText }
        return String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// `serialized()` as UTF-8 bytes, for a request body: no String made on the way, and no spare capacity (a
    /// chunk of uploads holds 100 of them; grown by doubling, they took twice their size).
    public func serializedBytes() -> [UInt8] {
        if let opaqueText { return Array(opaqueText.utf8) }
        // Every content line, unfolded, into one buffer (no String per line: serialising was a tenth of a
        // download's instructions), then folded into the output.
        var lines: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(properties.count)
        for property in properties {
            property.appendContentLine(to: &lines)
            ends.append(lines.count)
        }
        // A fold every 71 octets at least (75, or 74 after the leading space, less a UTF-8 sequence backed off).
        var folded = 0
        var start = 0
        for end in ends {
            folded += (end - start) * 74 / 71 + 5
            start = end
        }
        var output: [UInt8] = []
        output.reserveCapacity(folded + 24)
        output += "BEGIN:VCARD\r\n".utf8
        lines.withUnsafeBufferPointer { buffer in
            var start = 0
            for end in ends {
                Self.appendFolded(UnsafeBufferPointer(rebasing: buffer[start..<end]), to: &output)
                start = end
            }
        }
        output += "END:VCARD\r\n".utf8
        return output
    }

    /// > Lines of text SHOULD NOT be longer than 75 octets, excluding the line break. (RFC 6350 3.2)
    /// A continuation line starts with one space, which counts.
    private static func appendFolded(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var fold = Fold()
        fold.appendLines(of: bytes, to: &output)
        output.append(contentsOf: bytes[fold.start...])
        output.append(0x0D)
        output.append(0x0A)
    }

    /// Where folding a line stands: the next line starts at `start`, and may hold `limit` octets.
    struct Fold {
        var start = 0
        var limit = 75

        /// Appends every whole folded line of `bytes` from `start` on, leaving what could still be joined by more.
        mutating func appendLines(of bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
            while bytes.count - start > limit {
                var end = start + limit
                while end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // back off a continuation byte
                output.append(contentsOf: bytes[start..<end])
                output.append(0x0D)
                output.append(0x0A)
                output.append(0x20)
                start = end
                limit = 74
            }
        }
    }

    /// The card's text, spooled where it holds a spooled value (`Property.large`): written to a spool file a
    /// piece at a time, byte for byte what `serializedBytes` makes, never held whole.
    /// A spool file that cannot be written (a full disk) costs memory instead: the text is made in memory.
    public func serializedText() -> CardText {
        guard opaqueText == nil, properties.contains(where: { $0.large != nil }),
            let file = try? SpoolFile(), let text = try? spooledText(in: file)
        else { return .bytes(serializedBytes()) }
        return text
    }

    private func spooledText(in file: SpoolFile) throws(SystemError) -> CardText {
        var output: [UInt8] = Array("BEGIN:VCARD\r\n".utf8)
        func flush(over size: Int) throws(SystemError) {
            guard output.count > size else { return }
            try file.append(output)
            output.removeAll(keepingCapacity: true)
        }
        for property in properties {
            var line: [UInt8] = []
            guard let large = property.large else {
                property.appendContentLine(to: &line)
                line.withUnsafeBufferPointer { Self.appendFolded($0, to: &output) }
                try flush(over: CardText.spoolThreshold)
                continue
            }
            // The name and parameters, then the value a piece at a time, folded as one line: what is left of the
            // line so far waits in `line` for the next piece.
            property.appendContentHead(to: &line)
            var fold = Fold()
            var failure: SystemError?
            large.forEachPiece { piece in
                guard failure == nil else { return }
                line += piece
                line.withUnsafeBufferPointer { fold.appendLines(of: $0, to: &output) }
                line.removeSubrange(..<fold.start)
                fold.start = 0
                do throws(SystemError) { try flush(over: CardText.spoolThreshold) } catch { failure = error }
            }
            if let failure { throw failure }
            output += line
            output += [0x0D, 0x0A]
        }
        output += "END:VCARD\r\n".utf8
        try flush(over: 0)
        return .spooled(file)
    }
}

extension Property {
    /// Appends `[group.]NAME;PARAM=a,b:value`, unfolded. Parameter values are quoted only when they must be.
    func appendContentLine(to line: inout [UInt8]) {
        appendContentHead(to: &line)
        Self.appendWithoutLineBreaks(value, to: &line)
    }

    /// Appends `[group.]NAME;PARAM=a,b:`, what comes before the value.
    func appendContentHead(to line: inout [UInt8]) {
        if let group {
            line += group.utf8
            line.append(UInt8(ascii: "."))
        }
        line += name.utf8
        for parameter in parameters {
            line.append(UInt8(ascii: ";"))
            line += parameter.name.utf8
            for (index, value) in parameter.values.enumerated() {
                line.append(index == 0 ? UInt8(ascii: "=") : UInt8(ascii: ","))
                let encoded = Self.caretEncoded(value)
                // Bytes, not Characters: a combining mark after `,` would hide it in one Character.
                let quoted = encoded.containsByte {
                    $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ":")
                }
                if quoted { line.append(UInt8(ascii: "\"")) }
                line += encoded.utf8
                if quoted { line.append(UInt8(ascii: "\"")) }
            }
        }
        line.append(UInt8(ascii: ":"))
    }

    /// A value never holds a raw line break when written (it would end the line): each one, CRLF, LF or CR, is
    /// written as the escape `\n`, which is what it means in text. Values read by `CardReader` have none.
    private static let lineBreaks: [UInt8] = [0x0A, 0x0D]

    private static func appendWithoutLineBreaks(_ value: String, to line: inout [UInt8]) {
        guard value.containsAnyByte(of: lineBreaks) else {
            line += value.utf8
            return
        }
        var afterCR = false
        for byte in value.utf8 {
            defer { afterCR = byte == 0x0D }
            if byte == 0x0A, afterCR { continue }  // the LF of a CRLF, written with its CR
            if byte == 0x0A || byte == 0x0D {
                line += #"\n"#.utf8
            } else {
                line.append(byte)
            }
        }
    }

    /// RFC 6868: a `"` or a line break cannot stand in a parameter value, so they are written `^'` and `^n`, and a
    /// `^` that would read as the start of one of those is written `^^`. Other values are written as they are.
    static func caretEncoded(_ value: String) -> String {
        guard
            value.containsByte(where: {
                $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
                    || $0 == UInt8(ascii: "^")
            })
        else { return value }
        let bytes = Array(value.utf8)
        // A `^` before these would read as an escape: `'`, `n`, `N` and `^` themselves, and `"` and LF, which are
        // written `^'` and `^n`.
        let ambiguous: Set<UInt8> = [
            UInt8(ascii: "'"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "^"), UInt8(ascii: "\""),
            UInt8(ascii: "\n"),
        ]
        var result: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "\""): result += Array("^'".utf8)
            case UInt8(ascii: "\n"): result += Array("^n".utf8)
            case UInt8(ascii: "\r"): continue
            case UInt8(ascii: "^"):
                // What is written next decides, not the next byte of the value: CRs are dropped, and a quote or a
                // line break is written starting with `^` itself (`^` + LF was written `^^n`, read back as `^n`).
                let next = bytes[(index + 1)...].first { $0 != UInt8(ascii: "\r") } ?? 0
                result += ambiguous.contains(next) ? Array("^^".utf8) : [byte]
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

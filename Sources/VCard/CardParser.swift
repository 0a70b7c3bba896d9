/// Turns the unfolded lines of one card into a `Card`: decodes the values, upgrades vCard 2.1 to 3.0, checks
/// text escapes, and repairs a missing `VERSION`, `UID` or `FN`.
enum CardParser {
    static func parse(_ lines: [CardReader.RawLine], beginLine: Int) -> Result<ParsedCard, VCardError> {
        do throws(VCardError) {
            let legacy = lines.contains { isVersion21($0.bytes) }
            var properties: [Property] = []
            properties.reserveCapacity(lines.count)
            for line in lines {
                properties.append(try property(from: line, legacy: legacy))
            }
            var card = Card(properties: properties)
            let repairs = try repair(&card, beginLine: beginLine)
            return .success(ParsedCard(card: card, line: beginLine, repairs: repairs))
        } catch {
            return .failure(error)
        }
    }

    private static func isVersion21(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes.prefix(16), as: UTF8.self).uppercased().filter { $0 != " " }
        return text == "VERSION:2.1"
    }

    private static func property(from line: CardReader.RawLine, legacy: Bool) throws(VCardError) -> Property {
        let parsed = try PropertyLine(line.bytes, line: line.number)
        var property = Property(group: parsed.group, name: parsed.name, parameters: parsed.parameters, value: "")
        let upperName = parsed.name.uppercased()
        let encoding = property.parameterValues("ENCODING").first?.uppercased()
        let quotedPrintable =
            encoding == "QUOTED-PRINTABLE"
            || parsed.parameters.contains { $0.values.isEmpty && $0.name.uppercased() == "QUOTED-PRINTABLE" }
        let raw = quotedPrintable ? QuotedPrintable.decode(parsed.value)[...] : parsed.value
        let charset = property.parameterValues("CHARSET").first
        guard let text = QuotedPrintable.string(raw, charset: charset) else {
            if let charset, QuotedPrintable.string([], charset: charset) == nil {
                throw VCardError(
                    .unsupportedCharset, line: line.number, "\(parsed.name) uses unsupported CHARSET=\(charset)")
            }
            _ = try PropertyLine.utf8(raw, line: line.number, what: "the value of \(parsed.name)")
            throw VCardError(.invalidUTF8, line: line.number, "the value of \(parsed.name) is not valid UTF-8")
        }
        if legacy {
            return Legacy.upgrade(property, value: text)
        }
        if quotedPrintable {
            // A 3.0 writer that used quoted-printable anyway: keep the text, in 3.0 form.
            property.parameters = property.parameters.filter {
                $0.name.uppercased() != "ENCODING" && $0.name.uppercased() != "CHARSET" && !$0.values.isEmpty
            }
            property.value = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }
                .joined(separator: "\\n")
            return property
        }
        property.value = text
        if TextValue.textProperties.contains(upperName), let bad = TextValue.badEscape(in: text) {
            throw VCardError(
                .badEscape, line: line.number,
                "\(parsed.name) has an invalid escape \"\\\(bad.character)\" (only \\\\ \\, \\; \\n are allowed)")
        }
        return property
    }

    private static func repair(_ card: inout Card, beginLine: Int) throws(VCardError) -> [String] {
        var repairs: [String] = []
        if card.first("VERSION") == nil {
            card.properties.insert(Property(name: "VERSION", value: "3.0"), at: 0)
            repairs.append("added VERSION:3.0")
        }
        if card.first("FN").map({ $0.text.isEmpty }) ?? true {
            guard let (name, source) = derivedName(card) else {
                throw VCardError(.missingName, line: beginLine, "card has no FN, and no N or ORG to derive one from")
            }
            let fn = Property(name: "FN", value: TextValue.escape(name))
            card.properties.removeAll { $0.isNamed("FN") }
            let after = card.properties.firstIndex { $0.isNamed(source) } ?? (card.properties.count - 1)
            card.properties.insert(fn, at: after + 1)
            repairs.append("derived FN from \(source)")
        }
        if (card.uid ?? "").isEmpty {
            let uid = Card.makeUID()
            card.setUID(uid)
            repairs.append("added UID \(uid)")
        }
        return repairs
    }

    /// RFC 6350 6.2.2: N is family; given; additional; prefixes; suffixes. A person writes them
    /// "prefixes given additional family suffixes".
    private static func derivedName(_ card: Card) -> (String, String)? {
        if let n = card.first("N") {
            let parts = n.components + Array(repeating: "", count: max(0, 5 - n.components.count))
            let name = [parts[3], parts[1], parts[2], parts[0], parts[4]]
                .filter { !$0.isEmpty }.joined(separator: " ")
            if !name.isEmpty { return (name, "N") }
        }
        if let org = card.first("ORG")?.components.first, !org.isEmpty { return (org, "ORG") }
        return nil
    }
}

// How a 4.0 property is written in 3.0 (`version3Form`), and how those forms read back as 4.0 (`version4Form`).
// The table is in Docs/vcard.md. The content hash reads every property in its 3.0 form, so that a card, the 3.0
// card written from it and that card read back as 4.0 all hash the same.
extension Property {
    static let mediaProperties: [String] = ["PHOTO", "LOGO", "SOUND", "KEY"]

    /// 4.0 properties that 3.0 lacks, and the X- names they go by in 3.0. `X-ADDRESSBOOKSERVER-` is Apple's (and
    /// what Cyrus writes when it serves a 4.0 card as 3.0); Apple knows only the kinds group and individual, and
    /// the other kinds go the same way. `X-GENDER` and `X-ANNIVERSARY` are what other 3.0 writers use.
    static let version3Names: [(four: String, three: String)] = [
        ("KIND", "X-ADDRESSBOOKSERVER-KIND"), ("MEMBER", "X-ADDRESSBOOKSERVER-MEMBER"), ("GENDER", "X-GENDER"),
        ("ANNIVERSARY", "X-ANNIVERSARY"),
    ]

    /// Apple's year for a date without one: `BDAY;X-APPLE-OMIT-YEAR=1604:1604-04-15` (3.0 has no `--0415`).
    static let omittedYear = "1604"

    /// The property as vCard 3.0 writes it; nil when it is the same (most properties, and every 3.0 form). The
    /// content hash asks this of every property of every card, so a name none of the forms concern is told by its
    /// first letter, before anything else.
    func version3Form() -> Property? {
        var property: Property?
        switch name.utf8.first.map({ $0 | 0x20 }) {
        case UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "g"), UInt8(ascii: "k"), UInt8(ascii: "l"),
            UInt8(ascii: "m"), UInt8(ascii: "p"), UInt8(ascii: "s"), UInt8(ascii: "t"):
            property = namedVersion3Form()
        default: break
        }
        if !parameters.isEmpty, let pref = (property ?? self).preferenceAsType() { property = pref }
        return property
    }

    /// The 3.0 form of a property by its name, the renamings those of `version3Names` (a switch over short Strings:
    /// cheaper than a table walked).
    private func namedVersion3Form() -> Property? {
        switch name.uppercasedIfNeeded {
        case "PHOTO", "LOGO", "SOUND", "KEY": return mediaAsVersion3()
        case "TEL": return telephoneAsText()
        case "BDAY": return reducedDateAsVersion3()
        case "ANNIVERSARY":
            let renamed = named("X-ANNIVERSARY")
            return renamed.reducedDateAsVersion3() ?? renamed
        case "KIND": return named("X-ADDRESSBOOKSERVER-KIND")
        case "MEMBER": return named("X-ADDRESSBOOKSERVER-MEMBER")
        case "GENDER": return named("X-GENDER")
        default: return nil
        }
    }

    private func named(_ name: String) -> Property {
        var copy = self
        copy.name = name
        return copy
    }

    /// A 3.0 property as 4.0 writes it (the reverse of `version3Form`); nil when it is the same.
    func version4Form() -> Property? {
        var property: Property?
        if let renamed = Self.version3Names.first(where: { isNamed($0.three) }) {
            property = self
            property?.name = renamed.four
            if renamed.four == "GENDER", value.containsByte(UInt8(ascii: "\\")) {
                // A server that treats the X- property as text escapes GENDER's separator.
                property?.value = value.replacing("\\;", with: ";")
            }
        }
        let upper = (property ?? self).name.uppercasedIfNeeded
        if Self.mediaProperties.contains(upper) {
            property = mediaAsVersion4() ?? property
        } else if upper == "BDAY" || upper == "ANNIVERSARY" {
            property = (property ?? self).reducedDateAsVersion4() ?? property
        }
        if let pref = (property ?? self).typePrefAsPreference() { property = pref }
        return property
    }

    // MARK: PREF

    /// `PREF=1` as `TYPE=pref`, 3.0's one preferred instance. `PREF=2` and above have no 3.0 form and stay as they
    /// are: 3.0 readers ignore a parameter they do not know, and servers keep it.
    private func preferenceAsType() -> Property? {
        let isFirst = { (parameter: Parameter) in
            parameter.values.count == 1 && parameter.values[0] == "1" && parameter.isNamed("PREF")
        }
        guard parameters.contains(where: isFirst) else { return nil }
        var copy = self
        copy.parameters.removeAll(where: isFirst)
        if !copy.parameterValues("TYPE").contains(where: { $0.lowercased() == "pref" }) {
            copy.appendType("pref")
        }
        return copy
    }

    /// `TYPE=pref` as `PREF=1`.
    private func typePrefAsPreference() -> Property? {
        guard !parameters.isEmpty, parameterValues("TYPE").contains(where: { $0.lowercased() == "pref" }) else {
            return nil
        }
        var copy = self
        copy.parameters = parameters.compactMap { parameter in
            guard parameter.name.uppercasedIfNeeded == "TYPE" else { return parameter }
            let values = parameter.values.filter { $0.lowercased() != "pref" }
            return values.isEmpty ? nil : Parameter(parameter.name, values)
        }
        if copy.parameterValues("PREF").isEmpty { copy.parameters.append(Parameter("PREF", ["1"])) }
        return copy
    }

    /// A TYPE value added to the first TYPE parameter, or as a new one.
    private mutating func appendType(_ type: String) {
        if let index = parameters.firstIndex(where: { $0.name.uppercasedIfNeeded == "TYPE" }) {
            parameters[index].values.append(type)
        } else {
            parameters.append(Parameter("TYPE", [type]))
        }
    }

    // MARK: TEL

    /// `TEL;VALUE=uri:tel:+1-418-656-9254;ext=102` as `TEL:+1-418-656-9254 ext. 102`: a 3.0 TEL is text. A tel:
    /// URI with other parameters (`phone-context`, `isub`) stays as it is, since text would lose them.
    private func telephoneAsText() -> Property? {
        guard value.hasASCIIPrefix("tel:") else { return nil }
        // Not percent-decoded: an escaped byte could be a line break or a backslash, which text would read otherwise.
        // A `\;` is a server's escape of the separator.
        let pieces = value.dropFirst(4).split(separator: ";", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\\") ? $0.dropLast() : $0
        }
        // Nothing to write around the words (an empty number or extension): the value stays as it is.
        guard !pieces[0].isEmpty else { return nil }
        var number = String(pieces[0])
        for piece in pieces.dropFirst() {
            guard piece.lowercased().hasPrefix("ext="), piece.count > 4 else { return nil }
            number += " ext. " + piece.dropFirst(4)
        }
        var copy = self
        copy.value = number
        copy.parameters.removeAll { $0.name.uppercasedIfNeeded == "VALUE" }
        return copy
    }

    // MARK: Dates

    /// `--0415` (a date without a year, RFC 6350 4.3.1) as `1604-04-15` with `X-APPLE-OMIT-YEAR=1604`. Other
    /// dates go as they are: 3.0 reads `19850415` and `1985-04-15`, and `--04-15` is how 3.0 writers such as Google
    /// write a date without a year.
    private func reducedDateAsVersion3() -> Property? {
        let bytes = value.utf8
        guard bytes.count == 6, bytes.starts(with: "--".utf8), bytes.dropFirst(2).allSatisfy(Self.isDigit) else {
            return nil
        }
        var copy = self
        copy.value = Self.omittedYear + "-" + value.dropFirst(2).prefix(2) + "-" + value.suffix(2)
        copy.parameters.removeAll { $0.name.uppercasedIfNeeded == "X-APPLE-OMIT-YEAR" }
        copy.parameters.append(Parameter("X-APPLE-OMIT-YEAR", [Self.omittedYear]))
        return copy
    }

    /// `X-APPLE-OMIT-YEAR=1604:1604-04-15` as `--0415`.
    private func reducedDateAsVersion4() -> Property? {
        guard !parameters.isEmpty, let year = parameterValues("X-APPLE-OMIT-YEAR").first else { return nil }
        let bytes = Array(value.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes.starts(with: year.utf8), year.utf8.count == 4
        else { return nil }
        var copy = self
        copy.value = "--" + String(decoding: bytes[5..<7] + bytes[8..<10], as: UTF8.self)
        copy.parameters.removeAll { $0.name.uppercasedIfNeeded == "X-APPLE-OMIT-YEAR" }
        return copy
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: PHOTO, LOGO, SOUND, KEY

    /// The media type's top level for a 3.0 TYPE (`PNG`) of this property: `image/png`.
    private var mediaTopLevel: String {
        switch name.uppercasedIfNeeded {
        case "SOUND": "audio"
        case "KEY": "application"
        default: "image"
        }
    }

    /// The 3.0 form of a photo, logo, sound or key; nil when it is that already.
    /// - `data:image/png;base64,AAA` (with the comma escaped `\,` too, as some writers do, and without a media
    ///   type) as `ENCODING=b;TYPE=PNG` and the base64; without a media type, the type is read from the data's
    ///   first bytes (PNG, JPEG, GIF), else left out: never an empty TYPE, never a second one.
    /// - a URI (`http://...`) as `VALUE=uri`, with `MEDIATYPE=image/png` as `TYPE=PNG`.
    /// - `ENCODING=b` without a TYPE gets the type its bytes show.
    func mediaAsVersion3() -> Property? {
        // Told by the value's head: a spooled photo is not read whole to learn what it is.
        let head = valueHead
        if head.hasASCIIPrefix("data:") { return inlineMediaAsVersion3() }
        let encoding = parameterValues("ENCODING").first?.lowercasedIfNeeded
        if encoding == "b" || encoding == "base64" {
            // The type its bytes show, as a data: URI read back gets it (Cyrus types a 3.0 photo so too).
            guard !parameterValues("TYPE").contains(where: { !$0.isEmpty }), let sniffed = Self.sniffedType(head)
            else { return nil }
            var copy = self
            copy.parameters.removeAll { $0.name.uppercasedIfNeeded == "TYPE" }
            copy.parameters.append(Parameter("TYPE", [sniffed]))
            return copy
        }
        guard encoding == nil, Self.startsWithURIScheme(head) else { return nil }
        let mediaType = parameterValues("MEDIATYPE").first
        let valueTypes = parameterValues("VALUE")
        let hasURIValue = valueTypes.contains { $0.lowercased() == "uri" }
        guard valueTypes.isEmpty || hasURIValue, mediaType != nil || !hasURIValue else { return nil }
        var copy = self
        copy.parameters.removeAll { $0.name.uppercasedIfNeeded == "MEDIATYPE" }
        if !hasURIValue { copy.parameters.insert(Parameter("VALUE", ["uri"]), at: 0) }
        if let subtype = mediaType.flatMap(Self.subtype), parameterValues("TYPE").isEmpty {
            copy.parameters.append(Parameter("TYPE", [subtype]))
        }
        return copy
    }

    /// The 4.0 form of a 3.0 photo, logo, sound or key: `ENCODING=b;TYPE=PNG:AAA` as `data:image/png;base64,AAA`,
    /// `VALUE=uri;TYPE=PNG:http://...` as `MEDIATYPE=image/png:http://...`; nil for anything else.
    func mediaAsVersion4() -> Property? {
        let encoding = parameterValues("ENCODING").first?.lowercased()
        let types = parameterValues("TYPE").filter { !$0.isEmpty }
        if encoding == "b" || encoding == "base64" {
            let type = types.first ?? Self.sniffedType(valueHead)
            let mediaType = type.map { $0.containsByte(UInt8(ascii: "/")) ? $0 : mediaTopLevel + "/" + $0.lowercased() }
            var copy = self
            copy.parameters.removeAll {
                let key = $0.name.uppercasedIfNeeded
                return key == "ENCODING" || key == "TYPE" || key == "VALUE"
            }
            if types.count > 1 { copy.parameters.append(Parameter("TYPE", Array(types.dropFirst()))) }
            let header = "data:" + (mediaType ?? "") + ";base64,"
            if let large {
                copy.setLarge(large.prepending(header))
            } else {
                copy.value = header + value
            }
            return copy
        }
        guard parameterValues("VALUE").contains(where: { $0.lowercased() == "uri" }) else { return nil }
        var copy = self
        copy.parameters.removeAll {
            let key = $0.name.uppercasedIfNeeded
            return key == "VALUE" || (key == "TYPE" && types.count == 1)
        }
        if types.count == 1, let type = types.first {
            let mediaType = type.containsByte(UInt8(ascii: "/")) ? type : mediaTopLevel + "/" + type.lowercased()
            copy.parameters.append(Parameter("MEDIATYPE", [mediaType]))
        }
        return copy
    }

    /// `PHOTO:data:image/jpeg;base64,AAA` as `PHOTO;ENCODING=b;TYPE=JPEG:AAA`; nil for anything else.
    func inlineMediaAsVersion3() -> Property? {
        // Not when ENCODING says the value is data already: its data could start `data:` again, and a second reading
        // would change it.
        let head = valueHead
        guard head.hasASCIIPrefix("data:"), Self.mediaProperties.contains(name.uppercasedIfNeeded),
            parameterValues("ENCODING").isEmpty, let comma = head.firstIndex(of: ",")
        else { return nil }
        // RFC 2397: data:[<mediatype>][;base64],<data>. Some writers escape the comma (`base64\,`), as in text.
        let header = head[head.index(head.startIndex, offsetBy: 5)..<comma].split(separator: ";").map {
            $0.filter { $0 != "\\" }
        }
        let base64 = header.last?.lowercased() == "base64"
        let subtype = header.first { $0.contains("/") }.flatMap(Self.subtype)
        // The data after the header: a spooled photo's stays in its file.
        var data = Property(name: name, value: "")
        if let large {
            data.setLarge(large.dropping(head.utf8.distance(from: head.startIndex, to: comma) + 1))
        } else {
            data.value = String(value[value.index(after: comma)...])
        }
        let types = parameterValues("TYPE").filter { !$0.isEmpty }
        var parameters = self.parameters.filter {
            let key = $0.name.uppercasedIfNeeded
            return key != "VALUE" && key != "MEDIATYPE" && key != "ENCODING" && key != "TYPE"
        }
        guard base64 else {
            // Text in a data: URI, as Cyrus turns a phone's 3.0 `SOUND;TYPE=X-IRMC-N:reading` into 4.0.
            let type = subtype.map { subtype in [subtype] + types.filter { $0.uppercased() != subtype } } ?? types
            if !type.isEmpty { parameters.append(Parameter("TYPE", type)) }
            return Property(
                group: group, name: name, parameters: parameters, value: PercentEncoding.decoded(data.value))
        }
        parameters.append(Parameter("ENCODING", ["b"]))
        if let type = subtype ?? Self.sniffedType(data.valueHead) {
            parameters.append(Parameter("TYPE", [type] + types.filter { $0.uppercased() != type }))
        } else if !types.isEmpty {
            parameters.append(Parameter("TYPE", types))
        }
        data.group = group
        data.parameters = parameters
        return data
    }

    /// `image/png` as `PNG`; nil for a media type without a subtype.
    private static func subtype(_ mediaType: some StringProtocol) -> String? {
        guard let slash = mediaType.firstIndex(of: "/") else { return nil }
        let subtype = mediaType[mediaType.index(after: slash)...]
        return subtype.isEmpty ? nil : subtype.uppercased()
    }

    /// The image type that base64 data starts as: the PNG, JPEG and GIF signatures, encoded.
    private static func sniffedType(_ base64: String) -> String? {
        let bytes = base64.utf8
        if bytes.starts(with: "iVBOR".utf8) { return "PNG" }
        if bytes.starts(with: "/9j/".utf8) { return "JPEG" }
        if bytes.starts(with: "R0lGOD".utf8) { return "GIF" }
        return nil
    }

    /// Whether the value starts as a URI does: a scheme (RFC 3986 3.1), then `://`, or `cid:` or `urn:` (a 3.0
    /// SOUND of text, such as a phone's reading of a name, may hold a colon too).
    private static func startsWithURIScheme(_ value: String) -> Bool {
        var count = 0
        var bytes = value.utf8.prefix(36).makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: ":") {
                let scheme = value.utf8.prefix(count)
                if scheme.elementsEqual("cid".utf8) || scheme.elementsEqual("urn".utf8) { return true }
                return count > 0 && bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "/")
            }
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let other =
                isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard letter || (count > 0 && other) else { return false }
            count += 1
        }
        return false
    }
}

extension Parameter {
    /// Matches a parameter name case-insensitively (ASCII), as `Property.isNamed` does a property's.
    func isNamed(_ other: String) -> Bool {
        name.utf8.count == other.utf8.count && zip(name.utf8, other.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}

extension String {
    /// Whether the text starts with this ASCII prefix, exactly, read in place.
    func hasASCIIPrefix(_ prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer<UInt8>(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return utf8.withContiguousStorageIfAvailable { $0.starts(with: expected) } ?? utf8.starts(with: expected)
    }
}

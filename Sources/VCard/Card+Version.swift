extension Card {
    /// The card as vCard 3.0, for a server that does not advertise 4.0 (RFC 6352 6.3.2.1: servers must accept
    /// 3.0). Inline `data:` photos become `ENCODING=b;TYPE=...` values, which 3.0-only servers keep (Radicale drops
    /// the image of a 4.0 `PHOTO:data:` value). Other properties pass through unchanged.
    public func converted(toVersion version: String) -> Card {
        guard version == "3.0", self.version != "3.0", opaqueText == nil else { return self }
        var card = self
        for index in card.properties.indices {
            if card.properties[index].isNamed("VERSION") {
                card.properties[index].value = "3.0"
            } else if let media = card.properties[index].inlineMediaAsVersion3() {
                card.properties[index] = media
            }
        }
        return card
    }

    /// A UID for a remote card that has none, the same every time it is read from the same place, so that the card
    /// keeps one identity across syncs (a random UID would make it a new contact on every run).
    public static func stableUID(forLocation location: String) -> String {
        "contactbox-" + sha256Hex(Array(location.utf8)).prefix(32)
    }
}

extension Property {
    static let mediaProperties: [String] = ["PHOTO", "LOGO", "SOUND", "KEY"]

    /// `PHOTO:data:image/jpeg;base64,AAA` as `PHOTO;ENCODING=b;TYPE=JPEG:AAA`; nil for anything else.
    func inlineMediaAsVersion3() -> Property? {
        guard value.utf8.starts(with: "data:".utf8), Self.mediaProperties.contains(name.uppercasedIfNeeded),
            let comma = value.firstIndex(of: ",")
        else { return nil }
        // RFC 2397: data:[<mediatype>][;base64],<data>
        let header = value[value.index(value.startIndex, offsetBy: 5)..<comma].split(separator: ";")
        let base64 = header.last?.lowercased() == "base64"
        let mediaType = header.first { $0.contains("/") }
        let subtype = mediaType.map { String($0.split(separator: "/").last ?? "").uppercased() }
        var parameters = self.parameters.filter {
            let key = $0.name.uppercased()
            return key != "VALUE" && key != "MEDIATYPE" && key != "ENCODING"
        }
        guard base64 else {
            // Text in a data: URI, as Cyrus turns a phone's 3.0 `SOUND;TYPE=X-IRMC-N:reading` into 4.0.
            parameters.append(Parameter("TYPE", [subtype ?? ""]))
            let text = PercentEncoding.decoded(String(value[value.index(after: comma)...]))
            return Property(group: group, name: name, parameters: parameters, value: text)
        }
        parameters.append(Parameter("ENCODING", ["b"]))
        if let subtype, !subtype.isEmpty, !parameters.contains(where: { $0.name.uppercased() == "TYPE" }) {
            parameters.append(Parameter("TYPE", [subtype]))
        }
        return Property(
            group: group, name: name, parameters: parameters, value: String(value[value.index(after: comma)...]))
    }
}

/// Percent-encoding (RFC 3986 2.1), undone: for data: URIs here, and for WebDAV hrefs (`DAVURL`).
public enum PercentEncoding {
    /// `%XX` escapes replaced by their bytes, read as UTF-8; anything else kept as it is.
    public static func decoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8.removeFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Card {
    /// `NICKNAME:a,b` as two NICKNAME lines, which say the same (RFC 6350 6.2.3, any number of NICKNAME): Radicale
    /// keeps only the first item of the list form.
    public func splittingNicknameLists() -> Card {
        guard opaqueText == nil, properties.contains(where: { $0.isNamed("NICKNAME") && $0.value.contains(",") })
        else { return self }
        var card = self
        card.properties = properties.flatMap { property -> [Property] in
            guard property.isNamed("NICKNAME") else { return [property] }
            let items = TextValue.split(property.value, on: UInt8(ascii: ",")).filter { !$0.isEmpty }
            return items.map { item in
                var copy = property
                copy.value = item
                return copy
            }
        }
        return card
    }
}

extension Card {
    /// The card as vCard 3.0, for a server that does not advertise 4.0 (RFC 6352 6.3.2.1: servers must accept
    /// 3.0). Inline `data:` photos become `ENCODING=b;TYPE=...` values, which 3.0-only servers keep (Radicale drops
    /// the image of a 4.0 `PHOTO:data:` value: SERVER-QUIRKS.md). Other properties pass through unchanged.
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
    static let mediaProperties: Set<String> = ["PHOTO", "LOGO", "SOUND", "KEY"]

    /// `PHOTO:data:image/jpeg;base64,AAA` as `PHOTO;ENCODING=b;TYPE=JPEG:AAA`; nil for anything else.
    func inlineMediaAsVersion3() -> Property? {
        guard Self.mediaProperties.contains(name.uppercased()), value.utf8.starts(with: "data:".utf8),
            let comma = value.firstIndex(of: ",")
        else { return nil }
        // RFC 2397: data:[<mediatype>][;base64],<data>
        let header = value[value.index(value.startIndex, offsetBy: 5)..<comma].split(separator: ";")
        guard header.last?.lowercased() == "base64" else { return nil }
        let mediaType = header.first { $0.contains("/") }
        let subtype = mediaType.map { String($0.split(separator: "/").last ?? "").uppercased() }
        var parameters = self.parameters.filter {
            let key = $0.name.uppercased()
            return key != "VALUE" && key != "MEDIATYPE" && key != "ENCODING"
        }
        parameters.append(Parameter("ENCODING", ["b"]))
        if let subtype, !subtype.isEmpty, !parameters.contains(where: { $0.name.uppercased() == "TYPE" }) {
            parameters.append(Parameter("TYPE", [subtype]))
        }
        return Property(
            group: group, name: name, parameters: parameters, value: String(value[value.index(after: comma)...]))
    }
}

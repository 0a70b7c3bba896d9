extension Card {
    /// The card as vCard 3.0 or 4.0, for a server that keeps only one of them; the same card when it is in that
    /// version already, or opaque.
    ///
    /// As 3.0 (RFC 6352 6.3.2.1: servers must accept it), each 4.0 form that 3.0 lacks is written as 3.0 writers
    /// write it (`Property.version3Form`, the table in Docs/vcard.md): inline photos as `ENCODING=b;TYPE=...`
    /// (Radicale drops the image of a 4.0 `PHOTO:data:` value), `KIND` and `MEMBER` as Apple's
    /// `X-ADDRESSBOOKSERVER-`, `PREF=1` as `TYPE=pref`, a `tel:` URI as text, `--0415` as Apple's year 1604. As 4.0,
    /// those forms are read back, so that 4.0, through a 3.0 server, back to 4.0 keeps what 3.0 carries and the
    /// content hash does not change.
    public func converted(toVersion version: String) -> Card {
        guard version == "3.0" || version == "4.0", self.version != version, opaqueText == nil else { return self }
        let toThree = version == "3.0"
        var card = self
        for index in card.properties.indices {
            if card.properties[index].isNamed("VERSION") {
                card.properties[index].value = version
            } else if let form = toThree
                ? card.properties[index].version3Form() : card.properties[index].version4Form()
            {
                card.properties[index] = form
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

import VCard

/// What a list shows of a live contact beside its name (`contacts.list_phone`, `list_email` and `list_photo`,
/// schema 10): worked out from the card whenever the store writes one, and kept in the name index with the search
/// keys, so that a page of the list, or of a search, is read from the index alone and never reads a card (a photo's
/// tens of kilobytes, for one line).
///
/// - `phone`: the first TEL with a value, without `tel:`; `email`: the first EMAIL with a value, without `mailto:`.
///   Each as written in the card, cut to at most `maxBytes` of UTF-8 (at a character).
/// - `hasPhoto`: whether the first PHOTO is embedded data whose first bytes are an image a browser may be given
///   (`ImageType`); its size is checked when the photo itself is asked for.
public struct ListLine: Sendable, Equatable {
    public var phone: String?
    public var email: String?
    public var hasPhoto: Bool

    /// The most bytes of the phone and of the email: a card's value of megabytes must not make an index entry.
    static let maxBytes = 256

    public init(card: Card) {
        let properties = card.isOpaque ? [] : card.properties
        phone = properties.first { $0.isNamed("TEL") && !$0.value.isEmpty }.map { property in
            SearchKey.cut(Card.withoutScheme(property.text, "tel:"), maxBytes: Self.maxBytes)
        }
        email = properties.first { $0.isNamed("EMAIL") && !$0.value.isEmpty }.map { property in
            SearchKey.cut(Card.withoutScheme(property.text, "mailto:"), maxBytes: Self.maxBytes)
        }
        if let photo = properties.first(where: { $0.isNamed("PHOTO") }), let data = BinaryValue(photo) {
            hasPhoto = ImageType.of(data.decodedHead(of: photo)) != nil
        } else {
            hasPhoto = false
        }
    }

    public init(phone: String?, email: String?, hasPhoto: Bool) {
        self.phone = phone
        self.email = email
        self.hasPhoto = hasPhoto
    }
}

import StatusServer
import VCard

/// What differs between two versions of a contact, field by field, in the words of its page: "Phone (mobile)" from
/// "+44 20 7946 0000" to "+44 20 7946 0001". A property the page has no words for goes by its name; a photo is
/// "Photo", described by its type and size, never its bytes. What every version carries anyway (`VERSION`, `PRODID`,
/// `UID`, `REV`) is no change.
enum FieldChanges {
    /// The changes from `before` to `after` (nil: the contact did not exist on that side), in the order the fields
    /// first appear.
    static func between(_ before: CardView?, _ after: CardView?) -> [FieldChange] {
        let old = before.map(items) ?? []
        let new = after.map(items) ?? []
        var order: [String] = []
        for item in old + new where !order.contains(item.field) { order.append(item.field) }
        var changes: [FieldChange] = []
        for field in order {
            var gone = old.filter { $0.field == field }.map(\.value)
            var came = new.filter { $0.field == field }.map(\.value)
            for value in gone where came.contains(value) {
                gone.remove(at: gone.firstIndex(of: value) ?? 0)
                came.remove(at: came.firstIndex(of: value) ?? 0)
            }
            for index in 0..<max(gone.count, came.count) {
                changes.append(
                    FieldChange(
                        field: field, before: index < gone.count ? gone[index] : nil,
                        after: index < came.count ? came[index] : nil))
            }
        }
        if let photo = photoChange(before?.card, after?.card) { changes.append(photo) }
        return changes
    }

    /// A field's name in words, with its label: "Phone (mobile)".
    static func fieldName(_ field: ContactField) -> String {
        let word = kindWords[field.kind] ?? field.kind.rawValue
        return field.label.map { "\(word) (\($0))" } ?? word
    }

    static let kindWords: [ContactField.Kind: String] = [
        .name: "Name", .nickname: "Nickname", .phone: "Phone", .email: "Email", .address: "Address",
        .birthday: "Birthday", .anniversary: "Anniversary", .organisation: "Organisation", .title: "Title",
        .role: "Role", .note: "Note", .categories: "Categories", .group: "Group", .url: "Web page",
        .social: "Social profile", .related: "Related", .gender: "Gender", .language: "Language",
        .timezone: "Time zone", .geo: "Location",
    ]

    /// Every field of a card as (field, value): the fields in words, then the unknown properties by name. The name's
    /// parts (`N`) count whenever the card has them, not only where the page shows them beside a different `FN`:
    /// an edit of the `FN` alone is then a change of the name alone.
    private static func items(_ view: CardView) -> [(field: String, value: String)] {
        let parts = ContactField(kind: .name, label: "full name", value: "")
        var items = view.fields.filter { $0.kind != .name || $0.label != parts.label }.map {
            (field: fieldName($0), value: $0.value)
        }
        if let derived = view.card.derivedFN, derived.source == "N" {
            items.append((field: fieldName(parts), value: derived.text))
        }
        for property in view.unknown {
            let value = property.dataBytes.map { "\($0) bytes of data" } ?? property.value
            items.append((field: property.name, value: value))
        }
        return items
    }

    /// "Photo" when the first `PHOTO` differs: added, removed, or other bytes.
    private static func photoChange(_ before: Card?, _ after: Card?) -> FieldChange? {
        let old = before?.first("PHOTO")
        let new = after?.first("PHOTO")
        switch (old, new) {
        case (nil, nil): return nil
        case (let old?, let new?):
            guard
                BinaryValue.fingerprint(of: old) != BinaryValue.fingerprint(of: new) || old.valueCount != new.valueCount
            else { return nil }
            let (from, to) = (describe(old), describe(new))
            return FieldChange(field: "Photo", before: from, after: from == to ? to + ", changed" : to)
        default:
            return FieldChange(field: "Photo", before: old.map(describe), after: new.map(describe))
        }
    }

    /// A photo in words: "JPEG, 12345 bytes", "a link to https://..." — never its bytes.
    static func describe(_ photo: Property) -> String {
        guard let data = BinaryValue(photo) else { return "a link to \(photo.value)" }
        let type = ImageType.of(data.decodedHead(of: photo)).map(ImageType.word) ?? "data"
        return "\(type), \(data.decodedCount(of: photo)) bytes"
    }
}

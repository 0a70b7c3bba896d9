import SystemSupport

extension Card {
    /// What lists show for a card with no name at all.
    public static let noName = "(no name)"

    /// The name to show in lists and logs, never empty: the first non-empty FN, else a name made from N, else the
    /// ORG, else the first EMAIL, else the first TEL, else "(no name)". Unescaped. An unreadable card shows the
    /// name of its `FN` line when that line reads, "Ada Lovelace (unreadable)", so that a list and its search find
    /// it; else "(unreadable)".
    public var displayName: String {
        if let opaqueText {
            return Self.fnLine(in: opaqueText).map { "\($0) \(Self.unreadableName)" } ?? Self.unreadableName
        }
        return formattedName ?? derivedFN?.text ?? Self.noName
    }

    /// The first non-empty FN, unescaped; nil when the card has none (real exporters write cards with only an EMAIL
    /// or a TEL).
    public var formattedName: String? {
        properties.lazy.filter { $0.isNamed("FN") }.map(\.text).first { !$0.isEmpty }
    }

    /// A name made from what the card says, for a card without FN: from N ("prefixes given additional family
    /// suffixes"), else ORG, else the first EMAIL, else the first TEL; nil when the card has none of them. The text
    /// is always taken from the card, never made up.
    public var derivedFN: DerivedName? {
        if let n = first("N") {
            let parts = n.components + Array(repeating: "", count: max(0, 5 - n.components.count))
            // RFC 6350 6.2.2: N is family; given; additional; prefixes; suffixes.
            let name = [parts[3], parts[1], parts[2], parts[0], parts[4]]
                .map { $0.trimmingWhitespace }.filter { !$0.isEmpty }.joined(separator: " ")
            if !name.isEmpty { return DerivedName(text: name, source: "N") }
        }
        if let org = first("ORG")?.components.first?.trimmingWhitespace, !org.isEmpty {
            return DerivedName(text: org, source: "ORG")
        }
        if let email = properties.first(where: { $0.isNamed("EMAIL") && !$0.value.isEmpty }) {
            let address = Self.withoutScheme(email.text, "mailto:").trimmingWhitespace
            if !address.isEmpty { return DerivedName(text: address, source: "EMAIL") }
        }
        if let tel = properties.first(where: { $0.isNamed("TEL") && !$0.value.isEmpty }) {
            let number = Self.withoutScheme(tel.text, "tel:").trimmingWhitespace
            if !number.isEmpty { return DerivedName(text: number, source: "TEL") }
        }
        return nil
    }

    /// For a server that refuses a card without FN: this card with an FN made by `derivedFN` (inserted after
    /// VERSION), and a note for the report ("added FN \"ada@example.org\" from EMAIL"). Nil when the card has a
    /// non-empty FN already, or nothing to make one from: an FN is never invented.
    public func addingDerivedFN() -> (card: Card, note: String)? {
        guard formattedName == nil, let derived = derivedFN else { return nil }
        var card = self
        card.properties.removeAll { $0.isNamed("FN") }
        let at = card.properties.firstIndex { $0.isNamed("VERSION") }.map { $0 + 1 } ?? 0
        card.properties.insert(Property(name: "FN", value: TextValue.escape(derived.text)), at: at)
        var note = "added FN \"\(derived.text)\" from \(derived.source)"
        if version == "3.0", first("N") == nil {
            // vCard 3.0 requires N as well (RFC 2426 3.1.2; Cyrus refuses a card without it): an empty one.
            card.properties.insert(Property(name: "N", value: ";;;;"), at: at + 1)
            note += " and an empty N"
        }
        return (card, note)
    }

    /// `value` without a leading `scheme` (in any case): `tel:`, `mailto:`, `urn:uuid:`.
    public static func withoutScheme(_ value: String, _ scheme: String) -> String {
        value.lowercased().hasPrefix(scheme) ? String(value.dropFirst(scheme.count)) : value
    }
}

/// A name made from a card's other properties (`Card.derivedFN`).
public struct DerivedName: Sendable, Equatable {
    /// The name, unescaped.
    public var text: String
    /// The property it was made from: "N", "ORG", "EMAIL" or "TEL".
    public var source: String

    public init(text: String, source: String) {
        self.text = text
        self.source = source
    }
}

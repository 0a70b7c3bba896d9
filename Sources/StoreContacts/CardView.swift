import ContactStore
import StatusServer
import VCard

/// One card as the page shows it: its fields in words, in the order a contact's page shows them; the properties it
/// has no words for; and every property as it is.
///
/// What is shown in words: `FN` (and `N`, as the name's parts when they say more than `FN`), `NICKNAME`, `TEL`,
/// `EMAIL`, `ADR`, `BDAY`, `ANNIVERSARY` (`X-ANNIVERSARY`, Apple's `X-ABDATE`), `ORG`, `TITLE`, `ROLE`, `NOTE`,
/// `CATEGORIES`, a group's kind and members (`KIND`, `MEMBER` and Apple's `X-ADDRESSBOOKSERVER-` names), `URL`,
/// `IMPP`, `X-SOCIALPROFILE` and the older instant messaging properties (`X-JABBER` ...), `RELATED` (Apple's
/// `X-ABRELATEDNAMES`), `GENDER`, `LANG`, `TZ` and `GEO`. An `X-ABLabel` is the label of the property of its group.
/// Neither shown nor unknown: what every card carries for its software (`VERSION`, `PRODID`, `UID`, `REV`,
/// `CLIENTPIDMAP`), `KIND:individual` (the default), the `X-ABLabel` of a shown property, and `PHOTO`, which the
/// page shows as the picture. Everything else is `unknown`: listed as it is.
struct CardView {
    let card: Card
    /// Labels of `X-ABLabel` by group (lower case): Apple's and Google's way of naming a `TEL` or an `EMAIL`.
    private let groupLabels: [String: String]

    init(_ card: Card) {
        self.card = card
        var labels: [String: String] = [:]
        for property in card.properties where property.isNamed("X-ABLABEL") {
            if let group = property.group?.lowercased(), labels[group] == nil {
                labels[group] = Self.appleLabel(property.text)
            }
        }
        groupLabels = labels
    }

    /// The card of a stored text.
    init(text: CardText, uid: String) {
        self.init(Card.stored(text, uid: uid))
    }

    // MARK: Summary

    /// The name to list: the card's own (its `FN`, else one made from `N`, `ORG`, `EMAIL` or `TEL`), empty when it
    /// has none; an unreadable card's name as the store lists it.
    func name(stored: String) -> String {
        guard !card.isOpaque else { return stored }
        return card.formattedName ?? card.derivedFN?.text ?? ""
    }

    func summary(of contact: StoredContact) -> ContactSummary {
        let name = name(stored: contact.displayName)
        // The line a list shows, as the store keeps it (`ListLine`).
        let line = ListLine(card: card)
        return ContactSummary(
            uid: contact.uid, name: name, phone: line.phone, email: line.email, initials: Self.initials(name),
            hasPhoto: line.hasPhoto, hash: contact.hash, changeSeq: contact.changeSeq, changedAt: contact.changedAt)
    }

    /// One or two letters for the round badge: the first letters of the name's first and last words (those that
    /// have a letter), in upper case; "?" when there is none.
    static func initials(_ name: String) -> String {
        let letters = name.split(whereSeparator: { $0.isWhitespace }).compactMap { word in
            word.first(where: { $0.isLetter })
        }
        guard let first = letters.first else { return "?" }
        let chosen = letters.count > 1 ? [first, letters[letters.count - 1]] : [first]
        return String(chosen.map { String($0).uppercased().first ?? $0 })
    }

    static func phoneNumber(_ property: Property) -> String {
        Card.withoutScheme(property.text, "tel:")
    }

    static func emailAddress(_ property: Property) -> String {
        Card.withoutScheme(property.text, "mailto:")
    }

    // MARK: Fields

    /// The fields in words, in the order of `ContactField.Kind` (a page's order), each kind in the card's order.
    var fields: [ContactField] {
        var fields: [ContactField] = []
        for property in card.properties {
            fields += self.fields(of: property)
        }
        if !fields.contains(where: { $0.kind == .name }), let derived = card.derivedFN, derived.source == "N" {
            fields.append(ContactField(kind: .name, value: derived.text))
        }
        let order = Dictionary(uniqueKeysWithValues: ContactField.Kind.allCases.enumerated().map { ($1, $0) })
        return fields.enumerated().sorted { left, right in
            let (a, b) = (order[left.element.kind] ?? 0, order[right.element.kind] ?? 0)
            return a != b ? a < b : left.offset < right.offset
        }.map(\.element)
    }

    /// The properties the page has no words for, as they are.
    var unknown: [ContactProperty] {
        card.properties.filter { !isShown($0) && !Self.isStructural($0) }.map(Self.contactProperty)
    }

    /// Every property as it is, embedded data left out.
    var properties: [ContactProperty] {
        card.properties.map(Self.contactProperty)
    }

    /// Whether the page shows `property` in words (or as the picture).
    func isShown(_ property: Property) -> Bool {
        let name = property.name.uppercased()
        if name == "X-ABLABEL" {
            // The label of a property the page shows; alone, or of an unknown property, it is listed as it is.
            guard let group = property.group?.lowercased() else { return false }
            return card.properties.contains {
                $0.group?.lowercased() == group && !$0.isNamed("X-ABLABEL") && isShown($0)
            }
        }
        if name == "N" || name == "PHOTO" { return true }
        return !fields(of: property).isEmpty
    }

    /// What every card carries for its software, neither shown nor unknown.
    static func isStructural(_ property: Property) -> Bool {
        let name = property.name.uppercased()
        if ["VERSION", "PRODID", "UID", "REV", "CLIENTPIDMAP"].contains(name) { return true }
        if name == "KIND" || name == "X-ADDRESSBOOKSERVER-KIND" {
            return property.value.lowercased() == "individual" || property.value.isEmpty
        }
        return false
    }

    /// The fields one property makes: none for a property the page has no words for, several for a list
    /// (`NICKNAME:a,b`).
    func fields(of property: Property) -> [ContactField] {
        let name = property.name.uppercased()
        func field(_ kind: ContactField.Kind, _ value: String, label: String? = nil) -> [ContactField] {
            let trimmed = value.trimmingWhitespace
            return trimmed.isEmpty ? [] : [ContactField(kind: kind, label: label, value: trimmed)]
        }
        switch name {
        case "FN": return field(.name, property.text)
        case "N":
            // The name's parts, when they say more than the FN shown: "Mum" is "Jane Smith".
            guard let fn = card.formattedName, let derived = card.derivedFN, derived.source == "N",
                derived.text != fn
            else { return [] }
            return field(.name, derived.text, label: "full name")
        case "NICKNAME": return Self.listItems(property).flatMap { field(.nickname, $0) }
        case "TEL": return field(.phone, Self.phoneNumber(property), label: label(of: property))
        case "EMAIL":
            return field(.email, Self.emailAddress(property), label: label(of: property, dropping: ["internet"]))
        case "ADR":
            let parts = property.components.map { $0.split(whereSeparator: \.isNewline).joined(separator: ", ") }
            let line = parts.map(\.trimmingWhitespace).filter { !$0.isEmpty }.joined(separator: ", ")
            return field(.address, line, label: label(of: property))
        case "BDAY": return field(.birthday, DateWords.words(property))
        case "ANNIVERSARY", "X-ANNIVERSARY": return field(.anniversary, DateWords.words(property))
        case "X-ABDATE": return field(.anniversary, DateWords.words(property), label: label(of: property))
        case "ORG":
            let parts = property.components.map(\.trimmingWhitespace).filter { !$0.isEmpty }
            return field(.organisation, parts.joined(separator: ", "))
        case "TITLE": return field(.title, property.text)
        case "ROLE": return field(.role, property.text)
        case "NOTE": return field(.note, property.text)
        case "CATEGORIES": return field(.categories, Self.listItems(property).joined(separator: ", "))
        case "KIND", "X-ADDRESSBOOKSERVER-KIND":
            let kind = property.value.lowercased()
            return kind == "individual" ? [] : field(.group, kind, label: "kind")
        case "MEMBER", "X-ADDRESSBOOKSERVER-MEMBER":
            return field(.group, Card.withoutScheme(property.value, "urn:uuid:"), label: "member")
        case "URL": return field(.url, property.value, label: label(of: property))
        case "IMPP":
            let value = property.value
            let scheme = value.firstIndex(of: ":").map { String(value[..<$0]).lowercased() }
            let service = property.parameterValues("X-SERVICE-TYPE").first?.lowercased() ?? scheme
            let handle = scheme.map { Card.withoutScheme(value, $0 + ":") } ?? value
            return field(.social, handle, label: label(of: property) ?? service)
        case "X-SOCIALPROFILE":
            let user = property.parameterValues("X-USER").first
            return field(.social, user ?? property.value, label: label(of: property))
        case "RELATED", "X-ABRELATEDNAMES":
            return field(.related, Card.withoutScheme(property.text, "urn:uuid:"), label: label(of: property))
        case "GENDER", "X-GENDER": return field(.gender, Self.genderWords(property))
        case "LANG": return field(.language, property.value, label: label(of: property))
        case "TZ": return field(.timezone, property.text)
        case "GEO":
            return field(.geo, Card.withoutScheme(property.value, "geo:").replacing(",", with: ", "))
        default:
            if let service = Self.messagingServices[name] {
                return field(.social, property.text, label: label(of: property) ?? service)
            }
            return []
        }
    }

    /// The instant messaging properties of vCard 3.0 writers, and the service each names.
    static let messagingServices: [String: String] = [
        "X-AIM": "aim", "X-ICQ": "icq", "X-JABBER": "jabber", "X-MSN": "msn", "X-YAHOO": "yahoo", "X-SKYPE": "skype",
        "X-SKYPE-USERNAME": "skype", "X-GOOGLE-TALK": "google talk", "X-GTALK": "google talk", "X-TWITTER": "twitter",
        "X-QQ": "qq", "X-GADUGADU": "gadu-gadu",
    ]

    /// A property's kinds in words: its group's `X-ABLabel` where it has one, else its `TYPE`s in lower case (`cell`
    /// as "mobile"), without `pref` and those in `dropping`; nil when it has none.
    func label(of property: Property, dropping: Set<String> = []) -> String? {
        if let group = property.group?.lowercased(), let label = groupLabels[group], !label.isEmpty {
            return label
        }
        var kinds: [String] = []
        for value in property.parameterValues("TYPE") {
            for item in value.split(separator: ",") {
                var kind = item.trimmingWhitespace.lowercased()
                if kind == "cell" { kind = "mobile" }
                guard !kind.isEmpty, kind != "pref", !dropping.contains(kind), !kinds.contains(kind) else { continue }
                kinds.append(kind)
            }
        }
        return kinds.isEmpty ? nil : kinds.joined(separator: ", ")
    }

    /// Apple's standard labels in words (`_$!<Mobile>!$_` is "mobile", `_$!<HomePage>!$_` "home page"); a label of
    /// the person's own as it is.
    static func appleLabel(_ text: String) -> String {
        guard text.hasPrefix("_$!<"), text.hasSuffix(">!$_"), text.count > 8 else { return text }
        let inner = text.dropFirst(4).dropLast(4)
        var words = ""
        for character in inner {
            if character.isUppercase, !words.isEmpty { words.append(" ") }
            words += character.lowercased()
        }
        return words
    }

    /// The items of a list value (`NICKNAME:a,b`, `CATEGORIES`), split on commas that are not escaped, unescaped.
    static func listItems(_ property: Property) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in property.value {
            if escaped {
                current.append("\\")
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items.map { Property(name: "NOTE", value: $0).text.trimmingWhitespace }.filter { !$0.isEmpty }
    }

    /// `GENDER:F;woman` as "female, woman".
    static func genderWords(_ property: Property) -> String {
        let parts = property.components
        let sexes = ["M": "male", "F": "female", "O": "other", "N": "none", "U": "unknown"]
        var words: [String] = []
        if let sex = parts.first?.trimmingWhitespace, !sex.isEmpty { words.append(sexes[sex.uppercased()] ?? sex) }
        if parts.count > 1 {
            let identity = parts[1...].joined(separator: ";").trimmingWhitespace
            if !identity.isEmpty { words.append(identity) }
        }
        return words.joined(separator: ", ")
    }

    // MARK: Properties as they are

    /// Properties whose value is text with vCard's escapes, shown unescaped; others (URIs, dates) are as written.
    static let textProperties: Set<String> = [
        "FN", "N", "NICKNAME", "ORG", "TITLE", "ROLE", "NOTE", "ADR", "LABEL", "CATEGORIES", "GENDER", "EMAIL", "TEL",
        "PRODID", "X-GENDER",
    ]
    static let structuredProperties: Set<String> = ["N", "ADR", "ORG", "GENDER", "X-GENDER"]

    static func contactProperty(_ property: Property) -> ContactProperty {
        let name = property.name.uppercased()
        let parameters = property.parameters.map {
            ContactProperty.Parameter(name: $0.name.uppercased(), values: $0.values)
        }
        if let data = BinaryValue(property) {
            return ContactProperty(
                group: property.group, name: name, parameters: parameters, value: "",
                dataBytes: data.decodedCount(of: property))
        }
        let isText =
            textProperties.contains(name) || name.hasPrefix("X-")
            || property.parameterValues("VALUE").contains { $0.lowercased() == "text" }
        return ContactProperty(
            group: property.group, name: name, parameters: parameters, value: isText ? property.text : property.value,
            components: structuredProperties.contains(name) ? property.components : nil)
    }
}

import SystemSupport
import VCard

/// What a search looks in for one live contact (`contacts.search_text` and `search_phones`, schema 9): worked out
/// from the card whenever the store writes one, so that a search compares plain strings and never reads a card.
///
/// - `text`: the display name, each ORG (its components joined by a space) and each EMAIL (without `mailto:`),
///   lower-cased (`String.lowercased()`: Unicode's full lower-casing, so `Ä` finds `ä`; no other folding, no
///   accents removed, no normalisation), one per line.
/// - `phones`: the ASCII digits of each TEL (without `tel:`), one number per space-separated word, so that a
///   search's digits match within one number, never across two.
///
/// Each is at most `maxBytes` of UTF-8, cut at a character: the keys live in the name index, and a card with a
/// hundred addresses, or an ORG of megabytes, would otherwise make every search read its entry's overflow pages.
/// What lies beyond is not found by a search.
struct SearchKey: Equatable {
    var text: String
    var phones: String

    /// The most bytes of each key.
    static let maxBytes = 512

    /// The keys of `card`, stored with `displayName` (the `display_name` column, which the card gives too).
    init(card: Card, displayName: String) {
        var lines = [displayName]
        if !card.isOpaque {
            for property in card.properties {
                if property.isNamed("ORG") {
                    let org = property.components.map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
                    if !org.isEmpty { lines.append(org.joined(separator: " ")) }
                } else if property.isNamed("EMAIL") {
                    let address = Card.withoutScheme(property.text, "mailto:").trimmingWhitespace
                    if !address.isEmpty { lines.append(address) }
                }
            }
        }
        var numbers: [String] = []
        if !card.isOpaque {
            for property in card.properties where property.isNamed("TEL") {
                let digits = Self.digits(of: Card.withoutScheme(property.text, "tel:"))
                if !digits.isEmpty { numbers.append(digits) }
            }
        }
        text = Self.cut(lines.joined(separator: "\n").lowercased())
        phones = Self.cut(numbers.joined(separator: " "))
    }

    init(text: String, phones: String) {
        self.text = text
        self.phones = phones
    }

    /// The ASCII digits of `text`, in order.
    static func digits(of text: String) -> String {
        String(decoding: text.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }, as: UTF8.self)
    }

    /// `text` cut to at most `maxBytes` of UTF-8, at a character.
    static func cut(_ text: String, maxBytes: Int = maxBytes) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            bytes += character.utf8.count
            if bytes > maxBytes { break }
            result.append(character)
        }
        return result
    }
}

/// A search as the store runs it (`ContactStore.contacts(after:limit:search:)`).
///
/// The words as typed, trimmed of surrounding whitespace and lower-cased as `SearchKey.text` is, are a substring of
/// the text key (`%` and `_` are plain characters). When they are a phone number, they also match a contact with a
/// number whose digits contain theirs: that is, when what is left after removing spaces, `-`, `.`, `(`, `)`, `/` and
/// a leading `+` is all ASCII digits, and at least `minimumDigits` remain once leading zeros are dropped too. The
/// zeros go because a number is written with or without its trunk or international prefix: `030 12345` finds
/// `+49 30 12345` (digits 493012345) as `30 12345` does, and `0049 30 12345` finds `030 12345`.
struct SearchQuery: Equatable {
    /// What the text key must contain.
    var text: String
    /// What a number's digits must contain, where the words are a phone number.
    var digits: String?

    /// The fewest digits a phone search takes: one or two would match nearly every number.
    static let minimumDigits = 3

    /// The query in FTS5's syntax for the trigram index `contacts_search`: the text as one phrase in its `words`,
    /// or the digits in its `digits`. Nil when the text has fewer than three characters (a trigram index finds
    /// nothing shorter) or a control character (which FTS5's query syntax may not carry as it is).
    var trigramMatch: String? {
        guard text.unicodeScalars.count >= 3,
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        let words = "words : " + Self.phrase(text)
        // At least `minimumDigits` (3) digits: a phone search the trigram index can take too.
        guard let digits else { return words }
        return "(\(words)) OR (digits : \(Self.phrase(digits)))"
    }

    /// `text` as an FTS5 string: in double quotes, each of its own doubled.
    private static func phrase(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" { quoted.append("\"") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// The query of `words`; nil when they are empty or only whitespace (no search: every contact).
    init?(_ words: String) {
        let trimmed = words.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        text = trimmed.lowercased()
        var number = Substring(trimmed).filter { !$0.isWhitespace && !"-.()/".contains($0) }
        if number.first == "+" { number.removeFirst() }
        let digits = number.drop { $0 == "0" }
        if !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count >= Self.minimumDigits {
            self.digits = String(digits)
        }
    }
}

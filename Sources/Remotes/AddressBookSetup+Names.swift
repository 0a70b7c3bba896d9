extension AddressBookSetup {
    /// Names hold at most this many characters here (the reader takes 64): they are typed and shown in a line.
    static let nameLength = 32

    /// A remote name made from an address book's display name: lower-case ASCII letters and digits, `-` for
    /// the rest (common accented letters lose their accent), at most ``nameLength``; "-2", "-3"... when the name
    /// is `taken` (by either file). "Family Contacts" becomes `family-contacts`, "Müller" `muller`.
    public static func remoteName(for displayName: String, taken: Set<String>) -> String {
        var base = ""
        for character in displayName.lowercased() {
            let plain = character.isASCII ? String(character) : (folded[character] ?? "-")
            for scalar in plain.unicodeScalars {
                let ascii = Character(scalar)
                let keep = ascii.isASCII && (ascii.isLetter || ascii.isNumber)
                if keep {
                    base.append(ascii)
                } else if !base.isEmpty, !base.hasSuffix("-") {
                    base.append("-")
                }
            }
        }
        base = String(base.prefix(nameLength))
        while base.hasSuffix("-") { base.removeLast() }
        if base.isEmpty { base = "contacts" }
        guard taken.contains(base) else { return base }
        var number = 2
        while true {
            let suffix = "-\(number)"
            let name = String(base.prefix(nameLength - suffix.count)) + suffix
            if !taken.contains(name) { return name }
            number += 1
        }
    }

    private static let folded: [Character: String] = [
        "à": "a", "á": "a", "â": "a", "ã": "a", "ä": "a", "å": "a", "æ": "ae", "ç": "c", "è": "e", "é": "e",
        "ê": "e", "ë": "e", "ì": "i", "í": "i", "î": "i", "ï": "i", "ñ": "n", "ò": "o", "ó": "o", "ô": "o",
        "õ": "o", "ö": "o", "ø": "o", "ù": "u", "ú": "u", "û": "u", "ü": "u", "ý": "y", "ÿ": "y", "ß": "ss",
    ]
}

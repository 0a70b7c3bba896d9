import VCard

/// A card's date (`BDAY`, `ANNIVERSARY`, Apple's `X-ABDATE`) in words: `19850412` and `1985-04-12` are "12 April
/// 1985", `--0412` and `--04-12` "12 April", Apple's `X-APPLE-OMIT-YEAR=1604:1604-04-12` "12 April" too. A time after
/// the date is left out; a date in no form known here (or `VALUE=text`) is shown as the card gives it.
enum DateWords {
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    static func words(_ property: Property) -> String {
        let given = property.text
        if property.parameterValues("VALUE").contains(where: { $0.lowercased() == "text" }) { return given }
        return words(given, omittedYear: property.parameterValues("X-APPLE-OMIT-YEAR").first) ?? given
    }

    /// The date in words; nil when `value` is no date of the forms above.
    static func words(_ value: String, omittedYear: String? = nil) -> String? {
        var date = Substring(value)
        if let time = date.firstIndex(of: "T"), time != date.startIndex { date = date[..<time] }
        let year: Substring?
        let monthDay: Substring
        if date.hasPrefix("--") {
            year = nil
            monthDay = date.dropFirst(2)
        } else {
            let compact = date.filter { $0 != "-" }
            guard compact.count == 8 || compact.count == 6, compact.allSatisfy(\.isASCII) else { return nil }
            year = Substring(compact.prefix(4))
            monthDay = Substring(compact.dropFirst(4))
        }
        let digits = monthDay.filter { $0 != "-" }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let month = Int(digits.prefix(2)),
            (1...12).contains(month)
        else { return nil }
        if let year, !year.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        let shownYear = year.map(String.init).flatMap { $0 == omittedYear ? nil : $0 }
        guard digits.count == 4, let day = Int(digits.suffix(2)), (1...31).contains(day) else {
            // A month without a day (`1985-04`).
            guard digits.count == 2, let shownYear else { return nil }
            return "\(months[month - 1]) \(shownYear)"
        }
        return "\(day) \(months[month - 1])" + (shownYear.map { " " + $0 } ?? "")
    }
}

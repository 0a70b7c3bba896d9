extension Configuration {
    /// The most characters of a value a message or `check-config`'s summary shows.
    public static let shownLimit = 80

    /// `text` as shown to a person: whole when short, else its first ``shownLimit`` characters, "…" and its length
    /// in bytes (`aaaa… (1,048,576 bytes)`), so that a megabyte pasted by mistake does not fill the terminal.
    public static func shown(_ text: String) -> String {
        guard text.count > shownLimit else { return text }
        return String(text.prefix(shownLimit)) + "… (" + grouped(text.utf8.count) + " bytes)"
    }

    /// `text` in quotes, as messages quote what they found: `"aaaa…" (1,048,576 bytes)` when long.
    public static func quoted(_ text: String) -> String {
        guard text.count > shownLimit else { return "\"" + text + "\"" }
        return "\"" + String(text.prefix(shownLimit)) + "…\" (" + grouped(text.utf8.count) + " bytes)"
    }

    /// 1048576 as "1,048,576".
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }
}

extension Configuration {
    static let durationUnits: [(unit: Character, seconds: Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// Seconds in a duration such as `"30s"`, `"15m"`, `"1h"`, `"1d"` or `"1h30m"`; nil when the text is not one
    /// (or is zero, or longer than ten years).
    public static func seconds(inDuration text: String) -> Int? {
        var total = 0
        var number: Int?
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (shifted, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
                guard !overflow, shifted < 1_000_000_000 else { return nil }
                number = shifted + digit
            } else if let unit = durationUnits.first(where: { $0.unit == character }), let value = number {
                total += value * unit.seconds
                guard total <= 10 * 366 * 86_400 else { return nil }
                number = nil
            } else {
                return nil
            }
        }
        guard number == nil, total > 0 else { return nil }
        return total
    }

    /// The shortest text for a number of seconds, in the form ``seconds(inDuration:)`` reads: 5400 is `"1h30m"`.
    public static func durationText(seconds: Int) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = seconds
        var text = ""
        for (unit, size) in durationUnits where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}

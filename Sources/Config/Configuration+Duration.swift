extension Configuration {
    static let durationUnits: [(unit: Character, seconds: Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// The span a text such as `"30s"`, `"15m"`, `"1h"`, `"1d"` or `"1h30m"` names; nil when the text is not one
    /// (or is zero, or longer than ten years).
    public static func duration(_ text: String) -> Duration? {
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
        return .seconds(total)
    }

    /// The shortest text for a span in whole seconds (a fraction is dropped), in the form ``duration(_:)`` reads:
    /// 90 minutes are `"1h30m"`.
    public static func durationText(_ span: Duration) -> String {
        let seconds = Int(span.components.seconds)
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

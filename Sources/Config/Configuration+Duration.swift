import SystemSupport

extension Configuration {
    static let durationUnits: [(unit: Character, seconds: Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// The span a text such as `"30s"`, `"15m"`, `"1h"`, `"1d"` or `"1h30m"` names; nil when the text is not one
    /// (or is zero, or longer than ten years).
    public static func duration(_ text: String) -> Duration? {
        guard let span = Duration(spanText: text, units: "smhd", atMost: .seconds(10 * 366 * 86_400)), span > .zero
        else { return nil }
        return span
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

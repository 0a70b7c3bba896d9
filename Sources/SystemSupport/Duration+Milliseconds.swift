extension Duration {
    /// Whole milliseconds, rounded down, for the edges that take an integer: poll(2), sqlite3_busy_timeout, a
    /// monotonic clock read in milliseconds. Saturates at `Int64`'s bounds instead of trapping.
    public var wholeMilliseconds: Int64 {
        let perMillisecond: Int128 = 1_000_000_000_000_000
        var milliseconds = attoseconds / perMillisecond
        if attoseconds % perMillisecond < 0 { milliseconds -= 1 }
        return Int64(clamping: milliseconds)
    }

    /// Whole seconds, rounded up, for the edges that count in seconds and must not come short: `Retry-After`,
    /// libcurl's low-speed time. Saturates at `Int64`'s bounds instead of trapping.
    public var wholeSecondsRoundingUp: Int64 {
        let perSecond: Int128 = 1_000_000_000_000_000_000
        var seconds = attoseconds / perSecond
        if attoseconds % perSecond > 0 { seconds += 1 }
        return Int64(clamping: seconds)
    }
}

extension Duration {
    /// Seconds in each unit a span may be written in.
    private static let spanUnits: [UInt8: Int64] = [
        UInt8(ascii: "s"): 1, UInt8(ascii: "m"): 60, UInt8(ascii: "h"): 3_600, UInt8(ascii: "d"): 86_400,
        UInt8(ascii: "w"): 604_800,
    ]

    /// The span a text such as `30s`, `15m`, `2h`, `3d`, `1w` or `1h30m` names: whole numbers each followed by a
    /// unit of `units` (some of `smhdw`). nil when the text is not one, or longer than `limit`. The one reader of
    /// such spans: the configuration's intervals and `--as-of` spans back from now.
    public init?(spanText text: some StringProtocol, units: String, atMost limit: Duration) {
        var total: Int64 = 0
        var number: Int64?
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let (scaled, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
                guard !overflow, scaled < 1_000_000_000_000 else { return nil }
                number = scaled + Int64(byte - UInt8(ascii: "0"))
            } else if units.utf8.contains(byte), let size = Self.spanUnits[byte], let value = number {
                total += value * size
                guard Duration.seconds(total) <= limit else { return nil }
                number = nil
            } else {
                return nil
            }
        }
        guard number == nil, !text.isEmpty else { return nil }
        self = .seconds(total)
    }
}

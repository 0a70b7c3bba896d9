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

extension Duration {
    /// Whole milliseconds, rounded down, for the edges that take an integer: poll(2), sqlite3_busy_timeout, a
    /// monotonic clock read in milliseconds. Saturates at `Int64`'s bounds instead of trapping.
    public var wholeMilliseconds: Int64 {
        let perMillisecond: Int128 = 1_000_000_000_000_000
        var milliseconds = attoseconds / perMillisecond
        if attoseconds % perMillisecond < 0 { milliseconds -= 1 }
        return Int64(clamping: milliseconds)
    }
}

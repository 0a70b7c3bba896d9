import Glibc

// The clocks, each read in one place. Points in time are integers (Docs/contributing.md, rule 14): monotonic
// milliseconds for timers and spans, the wall clock's unix milliseconds for what is stored, unix seconds for what the
// status page shows.

/// CLOCK_MONOTONIC in milliseconds: for timers and durations, immune to the wall clock being set (a password lockout
/// must not end because someone set the clock).
public func monotonicMillis() -> Int64 {
    milliseconds(of: CLOCK_MONOTONIC)
}

/// The wall clock (CLOCK_REALTIME) in unix milliseconds: the store's timestamps, shown to people and compared across
/// reboots, so not the monotonic clock.
public func wallClockMillis() -> Int64 {
    milliseconds(of: CLOCK_REALTIME)
}

/// The wall clock in unix seconds, for what people read on the status page.
public func wallClockSeconds() -> Int64 {
    Int64(time(nil))
}

private func milliseconds(of clock: clockid_t) -> Int64 {
    var now = timespec()
    clock_gettime(clock, &now)
    return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
}

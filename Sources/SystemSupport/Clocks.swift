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

/// Whether the wall clock can be believed, and what it read against the boot's own clock (issue 36: a Raspberry Pi
/// has no battery-backed clock; it starts on the last time saved, hours or years behind, until the network time
/// sets it).
public struct ClockStatus: Sendable, Equatable {
    /// Set from the network: systemd-timesyncd says so (`/run/systemd/timesync/synchronized`), or the system does
    /// not run it (chrony, ntpd, a container's host), and the box takes its clock as right.
    public var synchronized: Bool
    /// The wall clock minus CLOCK_BOOTTIME, in milliseconds: when this boot began by the wall clock. It changes
    /// only when the clock is set, so a time recorded before that is put right by adding the change.
    public var bootStart: Int64
    /// The kernel's id of this boot: a time recorded in another boot cannot be put right any more.
    public var boot: String

    public init(synchronized: Bool, bootStart: Int64, boot: String) {
        self.synchronized = synchronized
        self.bootStart = bootStart
        self.boot = boot
    }

    /// This machine's clock now.
    public static func current() -> ClockStatus {
        let synchronized =
            access("/run/systemd/timesync/synchronized", F_OK) == 0 || access("/var/lib/systemd/timesync", F_OK) != 0
        return ClockStatus(
            synchronized: synchronized, bootStart: milliseconds(of: CLOCK_REALTIME) - milliseconds(of: CLOCK_BOOTTIME),
            boot: bootID)
    }

    private static let bootID: String =
        (try? SmallFile.read("/proc/sys/kernel/random/boot_id", limit: 64)).map {
            String(decoding: $0, as: UTF8.self).trimmingWhitespace
        } ?? "unknown"
}

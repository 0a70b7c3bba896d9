import Glibc
import SystemSupport

/// How long this process has been running, to the millisecond: from its start time in /proc/self/stat (field 22,
/// clock ticks since boot, proc(5)) to CLOCK_BOOTTIME now. Measures the daemon's time to its first LED state,
/// from before the dynamic loader ran; nil if /proc cannot be read.
func timeSinceProcessStart() -> Duration? {
    guard let stat = SmallFile.text("/proc/self/stat", limit: 4096),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    // Field 2 (the command) may hold spaces and parentheses: count fields after its closing parenthesis.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 19, let ticks = Int64(fields[19]) else { return nil }
    let hertz = Int64(sysconf(Int32(_SC_CLK_TCK)))
    var now = timespec()
    clock_gettime(CLOCK_BOOTTIME, &now)
    let nowMillis = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    return .milliseconds(nowMillis - ticks * 1000 / max(hertz, 1))
}

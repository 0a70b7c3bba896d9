import Glibc
import SystemSupport

/// Wrong passwords per client and for the whole box, and how long a client must wait before it may try again: the
/// status page's password would otherwise fall to a script trying thousands of guesses a second, or to one trying
/// a few from each of thousands of addresses.
///
/// Per client (an IPv4 address, or an IPv6 /64, which one household's or one attacker's machine has whole): the
/// first ``freeFailures`` wrong passwords cost nothing (people mistype). From then on each wrong one locks the
/// client out, for ``firstDelay`` and twice as long after each further failure, up to ``maxDelay``: 15 guesses in
/// the first 17 minutes, then 4 an hour. While locked out, every request of that client is refused at once (429)
/// without looking at the password, so the right one does not help either. A right password forgets the client; so
/// does a quiet ``forgetAfter``.
///
/// For the whole box: a bucket of ``globalBurst`` (10) wrong passwords, refilled by one every ``globalInterval``
/// (6 s: 10 a minute). Once it is empty, a password is checked only for a client that has given the right one
/// before (the household's devices, up to ``maxTrusted``); any other is refused with 429 until the bucket refills.
/// So at most 10 + 10 a minute wrong guesses are checked whatever the number of addresses, while the household's
/// phones and laptops keep their page; a new device waits out an attack.
///
/// A client is forgotten only when its ``forgetAfter`` has passed, never because others failed: at most
/// ``maxClients`` are remembered (at 10 failures a minute an hour fills 600), and when the table is full a client
/// it does not hold is refused until an entry expires, rather than making another forget its lockout.
///
/// Nothing here sleeps: the server must go on answering others (and libmicrohttpd's one thread is theirs too).
/// Pure over a caller's clock (monotonic milliseconds), so the tests need no waiting.
struct PasswordAttempts {
    static let freeFailures = 5
    static let firstDelay = Duration.seconds(1)
    static let maxDelay = Duration.seconds(15 * 60)
    static let forgetAfter = Duration.seconds(60 * 60)
    static let maxClients = 1024
    static let globalBurst = 10
    static let globalInterval = Duration.seconds(6)
    static let maxTrusted = 64

    private struct Client {
        var failures: Int
        var lastFailure: Int64
        /// 0 until ``PasswordAttempts/freeFailures`` is reached.
        var lockedUntil: Int64
    }

    /// ``globalBurst`` and ``globalInterval``, which tests of the table alone lift.
    private let burst: Int
    private let interval: Int64
    private var clients: [String: Client] = [:]
    /// Clients that gave the right password, with when they last did.
    private var trusted: [String: Int64] = [:]
    /// The global bucket as a "theoretical arrival time" (GCRA): each failure pushes it ``globalInterval`` on from
    /// `max(it, now)`; the bucket is empty while it is more than `globalBurst - 1` intervals ahead of now.
    private var bucketTime: Int64 = 0

    init(globalBurst: Int = Self.globalBurst, globalInterval: Duration = Self.globalInterval) {
        burst = globalBurst
        interval = globalInterval.wholeMilliseconds
    }

    /// How many clients are remembered.
    var count: Int { clients.count }

    /// The key a client is counted under: an IPv4 address as it is, an IPv6 address as its /64 (`2001:db8:1:2::/64`).
    static func key(for address: String) -> String {
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 8..<16 { raw[index] = 0 }
        }
        let prefix = withUnsafeBytes(of: &bytes) { numericText(family: AF_INET6, address: $0.baseAddress) }
        return (prefix ?? address) + "/64"
    }

    /// nil when `client` may present a password now, else how long it must still wait.
    mutating func wait(for client: String, now: Int64) -> Duration? {
        let forget = Self.forgetAfter.wholeMilliseconds
        if let entry = clients[client] {
            if now - entry.lastFailure >= forget {
                clients[client] = nil
            } else if entry.lockedUntil > now {
                return .milliseconds(entry.lockedUntil - now)
            }
        }
        if trusted[client] != nil { return nil }
        let ahead = bucketTime - now - Int64(burst - 1) * interval
        if ahead > 0 { return .milliseconds(ahead) }
        if clients[client] == nil, clients.count >= Self.maxClients {
            clients = clients.filter { now - $0.value.lastFailure < forget }
            if clients.count >= Self.maxClients {
                let oldest = clients.values.map(\.lastFailure).min() ?? now
                return .milliseconds(max(1_000, oldest + forget - now))
            }
        }
        return nil
    }

    /// Counts a wrong password from `client`, which ``wait(for:now:)`` let through. Returns its failures so far
    /// and, once they reach ``freeFailures``, the lockout that starts now.
    mutating func failed(_ client: String, now: Int64) -> (failures: Int, lockout: Duration?) {
        bucketTime = max(bucketTime, now) + interval
        var entry = clients[client] ?? Client(failures: 0, lastFailure: now, lockedUntil: 0)
        if .milliseconds(now - entry.lastFailure) >= Self.forgetAfter { entry.failures = 0 }
        entry.failures += 1
        entry.lastFailure = now
        var lockout: Duration?
        if entry.failures >= Self.freeFailures {
            // 2^20 s is far past the cap: the shift stays small whatever the count.
            let doublings = min(entry.failures - Self.freeFailures, 20)
            let delay = min(Self.maxDelay, Self.firstDelay * (1 << doublings))
            entry.lockedUntil = now + delay.wholeMilliseconds
            lockout = delay
        }
        // Over `maxClients` only when `wait` found room; a trusted client's failure may pass it by a little, which
        // its own lockout bounds.
        clients[client] = entry
        return (entry.failures, lockout)
    }

    /// The right password: `client` starts afresh, and is trusted when the global bucket runs dry. The trusted
    /// table's oldest entry makes way: forgetting one only costs a device a wait during an attack.
    mutating func succeeded(_ client: String, now: Int64) {
        clients[client] = nil
        if trusted[client] == nil, trusted.count >= Self.maxTrusted,
            let oldest = trusted.min(by: { $0.value < $1.value })?.key
        {
            trusted[oldest] = nil
        }
        trusted[client] = now
    }
}

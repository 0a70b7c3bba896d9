import SystemSupport

/// Wrong passwords per client address, and how long each client must wait before it may try again: the status
/// page's password would otherwise fall to a script trying thousands of guesses a second.
///
/// The first ``freeFailures`` wrong passwords cost nothing (people mistype). From then on each wrong one locks the
/// client out, for ``firstDelay`` and twice as long after each further failure, up to ``maxDelay``:
/// 15 guesses in the first 17 minutes, then 4 an hour. While locked out, every request of that
/// client is refused at once (429) without looking at the password, so the right one does not help either. A
/// right password forgets the client; so does a quiet ``forgetAfter``.
///
/// Nothing here sleeps: the server must go on answering others (and libmicrohttpd's one thread is theirs too).
/// At most ``maxClients`` clients are remembered, the one that failed longest ago making way, so a flood of
/// addresses costs a bounded table.
///
/// Pure over a caller's clock (monotonic milliseconds), so the tests need no waiting.
struct PasswordAttempts {
    static let freeFailures = 5
    static let firstDelay = Duration.seconds(1)
    static let maxDelay = Duration.seconds(15 * 60)
    static let forgetAfter = Duration.seconds(60 * 60)
    static let maxClients = 256

    private struct Client {
        var failures: Int
        var lastFailure: Int64
        /// 0 until ``PasswordAttempts/freeFailures`` is reached.
        var lockedUntil: Int64
    }

    private var clients: [String: Client] = [:]

    /// How many clients are remembered.
    var count: Int { clients.count }

    /// nil when `client` may present a password now, else how long it must still wait.
    mutating func wait(for client: String, now: Int64) -> Duration? {
        guard let entry = clients[client] else { return nil }
        if .milliseconds(now - entry.lastFailure) >= Self.forgetAfter {
            clients[client] = nil
            return nil
        }
        return entry.lockedUntil > now ? .milliseconds(entry.lockedUntil - now) : nil
    }

    /// Counts a wrong password from `client`. Returns its failures so far and, once they reach
    /// ``freeFailures``, the lockout that starts now.
    mutating func failed(_ client: String, now: Int64) -> (failures: Int, lockout: Duration?) {
        var entry = clients[client] ?? Client(failures: 0, lastFailure: now, lockedUntil: 0)
        if .milliseconds(now - entry.lastFailure) >= Self.forgetAfter { entry.failures = 0 }
        if clients[client] == nil, clients.count >= Self.maxClients, let oldest = oldestClient() {
            clients[oldest] = nil
        }
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
        clients[client] = entry
        return (entry.failures, lockout)
    }

    /// The right password: `client` starts afresh.
    mutating func succeeded(_ client: String) {
        clients[client] = nil
    }

    private func oldestClient() -> String? {
        clients.min { $0.value.lastFailure < $1.value.lastFailure }?.key
    }
}

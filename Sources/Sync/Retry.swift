import Glibc

/// Exponential backoff with jitter for a remote that is busy or briefly away (429, 503, a dropped connection),
/// honouring `Retry-After`. Only operations that are safe to repeat are retried: reads, and writes guarded by
/// `If-Match` / `If-None-Match` (a repeated write fails with 412 instead of doing harm).
public struct RetryPolicy: Sendable {
    public var attempts: Int
    /// The first delay, doubled on each retry up to `maxDelay`, in seconds.
    public var baseDelay: Double
    public var maxDelay: Double
    /// A `Retry-After` longer than this is not waited for: the run ends and the scheduler tries later.
    public var maxRetryAfter: Double
    /// Seconds of waiting between retries in one run with one remote, all requests together: a server that keeps
    /// failing slowly ends the run within this, and the scheduler tries later.
    public var maxWaiting: Double
    private var waited = WaitedTime()
    var sleep: @Sendable (Double) -> Void

    public init(
        attempts: Int = 4, baseDelay: Double = 1, maxDelay: Double = 30, maxRetryAfter: Double = 120,
        maxWaiting: Double = 300
    ) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.maxWaiting = maxWaiting
        self.sleep = { seconds in
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
        }
    }

    /// Runs `body`, retrying temporary failures (busy, unreachable, too slow) with "full jitter" (a random delay up to the backoff), as AWS's
    /// architecture blog measured to spread retries best.
    public func run<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as RemoteError {
                var retryAfter: Int?
                if case .unavailable(let seconds) = error.kind { retryAfter = seconds }
                guard error.kind.isTemporary, attempt < attempts,
                    let delay = delay(afterAttempt: attempt, retryAfter: retryAfter)
                else { throw error }
                sleep(delay)
                attempt += 1
            }
        }
    }

    /// The same policy with nothing waited yet: one budget per run with one remote.
    func withFreshBudget() -> RetryPolicy {
        var copy = self
        copy.waited = WaitedTime()
        return copy
    }

    /// The wait before attempt `attempt + 1`: a random delay up to the doubled backoff, at least `Retry-After`;
    /// nil when the server asks for a longer wait than `maxRetryAfter`, or the waiting so far and this wait would
    /// pass `maxWaiting`. Counted as waited.
    func delay(afterAttempt attempt: Int, retryAfter: Int?) -> Double? {
        let backoff = min(maxDelay, baseDelay * Double(1 << min(attempt - 1, 30)))
        var delay = Double.random(in: 0...backoff)
        if let retryAfter {
            guard Double(retryAfter) <= maxRetryAfter else { return nil }
            delay = max(delay, Double(retryAfter))
        }
        guard waited.seconds + delay <= maxWaiting else { return nil }
        waited.seconds += delay
        return delay
    }
}

extension RetryPolicy {
    /// For tests: no waiting.
    public static func immediate(attempts: Int = 4) -> RetryPolicy {
        var policy = RetryPolicy(attempts: attempts)
        policy.sleep = { _ in }
        return policy
    }
}

/// Seconds a policy has waited, shared by its copies: one budget for every request of a run.
private final class WaitedTime: @unchecked Sendable {
    // Only the sync worker's thread uses a run's policy.
    var seconds: Double = 0
}

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
    var sleep: @Sendable (Double) -> Void

    public init(attempts: Int = 4, baseDelay: Double = 1, maxDelay: Double = 30, maxRetryAfter: Double = 120) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.sleep = { seconds in
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
        }
    }

    /// Runs `body`, retrying on `.unavailable` with "full jitter" (a random delay up to the backoff), as AWS's
    /// architecture blog measured to spread retries best.
    public func run<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as RemoteError {
                guard case .unavailable(let retryAfter) = error.kind, attempt < attempts,
                    let delay = delay(afterAttempt: attempt, retryAfter: retryAfter)
                else { throw error }
                sleep(delay)
                attempt += 1
            }
        }
    }

    /// The wait before attempt `attempt + 1`: a random delay up to the doubled backoff, at least `Retry-After`;
    /// nil when the server asks for a longer wait than `maxRetryAfter`.
    func delay(afterAttempt attempt: Int, retryAfter: Int?) -> Double? {
        let backoff = min(maxDelay, baseDelay * Double(1 << min(attempt - 1, 30)))
        let delay = Double.random(in: 0...backoff)
        guard let retryAfter else { return delay }
        guard Double(retryAfter) <= maxRetryAfter else { return nil }
        return max(delay, Double(retryAfter))
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

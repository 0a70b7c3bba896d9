import Glibc
import Sync

/// Exponential backoff with jitter for a remote that is busy or briefly away (429, 503, a dropped connection),
/// honouring `Retry-After`. Only operations that are safe to repeat are retried: reads, and writes guarded by
/// `If-Match` / `If-None-Match` (a repeated write fails with 412 instead of doing harm).
public struct RetryPolicy: Sendable {
    public var attempts: Int
    /// The first delay, doubled on each retry up to `maxDelay`.
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A `Retry-After` longer than this is not waited for: the run ends and the scheduler tries later.
    public var maxRetryAfter: Duration
    /// The waiting between retries in one run with one remote, all requests together: a server that keeps
    /// failing slowly ends the run within this, and the scheduler tries later.
    public var maxWaiting: Duration
    /// The end of the remote's turn (`TurnDeadline`), if any: no retry is waited for that would end past it.
    public var deadline: ContinuousClock.Instant?
    private var waited = WaitedTime()
    var sleep: @Sendable (Duration) -> Void

    public init(
        attempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120), maxWaiting: Duration = .seconds(300)
    ) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.maxWaiting = maxWaiting
        self.sleep = { span in
            let (seconds, attoseconds) = span.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
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
                var retryAfter: Duration?
                if case .unavailable(let wait) = error.kind { retryAfter = wait }
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
    /// pass `maxWaiting`, or it would end past the turn's deadline. Counted as waited.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
        let backoff = min(maxDelay, baseDelay * (1 << min(attempt - 1, 30)))
        var delay = backoff * Double.random(in: 0...1)
        if let retryAfter {
            guard retryAfter <= maxRetryAfter else { return nil }
            delay = max(delay, retryAfter)
        }
        guard waited.span + delay <= maxWaiting else { return nil }
        if let deadline, ContinuousClock.now + delay >= deadline { return nil }
        waited.span += delay
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

/// How long a policy has waited, shared by its copies: one budget for every request of a run.
private final class WaitedTime: @unchecked Sendable {
    // Only the sync worker's thread uses a run's policy.
    var span = Duration.zero
}

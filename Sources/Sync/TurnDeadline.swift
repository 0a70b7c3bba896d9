import SystemSupport

/// The end of one remote's turn in a pass: every request and retry of the turn together end by it, so that a server
/// that trickles its answers or keeps failing slowly holds a sync for `limit` at most, whatever each request's own
/// limits (`HTTPConfiguration`) and the retries (`RetryPolicy`) would allow. When it has passed, the turn ends with
/// `.tooSlow` (exit 75; the daemon tries again later, with backoff), and the next remote has its turn. What the
/// turn committed stays: a first download too big for one turn goes on in the next.
public struct TurnDeadline: Sendable {
    /// Ten minutes: two whole requests at their 5-minute total (a listing and the retry of one), and less than the
    /// daemon's 15-minute interval, so that one slow remote cannot hold a pass for ever.
    public static let standardLimit = Duration.seconds(600)

    public let limit: Duration
    public let end: ContinuousClock.Instant

    public init(limit: Duration = Self.standardLimit, from start: ContinuousClock.Instant = .now) {
        self.limit = limit
        end = start + limit
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }

    /// How early libcurl may end a hop whose total timeout is what was left of the turn: its timers count in whole
    /// milliseconds on a clock of its own, and under load one was seen ending just before `end` by ours, so that
    /// its timeout was reported instead of the turn's.
    static let timerSlack = Duration.milliseconds(50)

    /// "too slow: NAME's turn took more than 10 min; the next pass tries again".
    public func error(remote: String) -> RemoteError {
        RemoteError(
            .tooSlow, "too slow: \(remote)'s turn took more than \(Self.text(limit)); the next pass tries again")
    }

    /// "10 min" for whole minutes, else "N s" (a short limit in a test).
    static func text(_ span: Duration) -> String {
        let seconds = span.wholeSecondsRoundingUp
        return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }

    /// `error` in place of a temporary failure that came once the deadline had passed, or `timerSlack` before it
    /// (the request it cut short), else `error` as it is.
    public func replacing(_ error: RemoteError, remote: String) -> RemoteError {
        ContinuousClock.now >= end - Self.timerSlack && error.kind.isTemporary ? self.error(remote: remote) : error
    }
}

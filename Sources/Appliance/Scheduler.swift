import SystemSupport

/// When the next pass is due: at start-up, every `interval`, a full check every `fullCheck`, sooner after a
/// failure for lack of network (backing off from 30 s up to the interval), and 2 s after the network comes back.
/// Pure and driven by the caller's monotonic clock (its instants in milliseconds), so it is tested without waiting.
public struct Scheduler: Sendable, Equatable {
    public var interval: Duration
    public var fullCheck: Duration
    /// When the next ordinary pass is due; `Int64.max` while one runs.
    public private(set) var nextPass: Int64
    public private(set) var nextFullCheck: Int64
    /// The pause before the next retry, while remotes cannot be reached.
    public private(set) var retryDelay: Duration?
    private var nextTrigger: SyncTrigger = .startup

    public static let firstRetry = Duration.seconds(30)
    /// Routes and DNS settle for a moment after a link comes up.
    public static let networkSettle = Duration.seconds(2)

    /// The first pass is due at once (start-up); the first full check one `fullCheck` later.
    public init(interval: Duration, fullCheck: Duration, now: Int64) {
        self.interval = interval
        self.fullCheck = fullCheck
        nextPass = now
        nextFullCheck = now + fullCheck.wholeMilliseconds
    }

    /// How a pass ended, as far as scheduling goes.
    public enum PassResult: Sendable {
        case done
        /// A remote could not be reached: try again soon.
        case retryLater
    }

    /// The request due at `now`, if any.
    public func due(at now: Int64) -> SyncRequest? {
        guard now >= nextPass else { return nil }
        return SyncRequest(nextTrigger, fullCheck: now >= nextFullCheck)
    }

    /// A pass started (whatever triggered it): nothing else is due until it ends.
    public mutating func passStarted(fullCheck full: Bool, at now: Int64) {
        nextPass = .max
        if full { nextFullCheck = now + fullCheck.wholeMilliseconds }
    }

    public mutating func passFinished(_ result: PassResult, at now: Int64) {
        switch result {
        case .done:
            retryDelay = nil
            nextTrigger = .interval
            nextPass = now + interval.wholeMilliseconds
        case .retryLater:
            let delay = min(max(Self.firstRetry, (retryDelay ?? .zero) * 2), max(interval, Self.firstRetry))
            retryDelay = delay
            nextTrigger = .retry
            nextPass = now + delay.wholeMilliseconds
        }
    }

    /// The network came back: retry soon if the last pass was waiting for it.
    public mutating func networkCameBack(at now: Int64) {
        guard retryDelay != nil, nextPass != .max else { return }
        nextTrigger = .networkBack
        nextPass = min(nextPass, now + Self.networkSettle.wholeMilliseconds)
    }

    /// New settings (SIGHUP): the next pass keeps its time unless the new interval makes it due sooner.
    public mutating func reconfigure(interval: Duration, fullCheck: Duration, now: Int64) {
        self.interval = interval
        self.fullCheck = fullCheck
        if nextPass != .max { nextPass = min(nextPass, now + interval.wholeMilliseconds) }
        nextFullCheck = min(nextFullCheck, now + fullCheck.wholeMilliseconds)
    }
}

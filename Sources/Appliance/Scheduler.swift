/// When the next pass is due: at start-up, every `interval`, a full check every `fullCheck`, sooner after a
/// failure for lack of network (backing off from 30 s up to the interval), and 2 s after the network comes back.
/// Pure and driven by the caller's monotonic clock (milliseconds), so it is tested without waiting.
public struct Scheduler: Sendable, Equatable {
    public var interval: Int64
    public var fullCheck: Int64
    /// When the next ordinary pass is due; `Int64.max` while one runs.
    public private(set) var nextPass: Int64
    public private(set) var nextFullCheck: Int64
    /// The pause before the next retry, while remotes cannot be reached.
    public private(set) var retryDelay: Int64?
    private var nextTrigger: SyncTrigger = .startup

    public static let firstRetry: Int64 = 30_000
    /// Routes and DNS settle for a moment after a link comes up.
    public static let networkSettle: Int64 = 2_000

    /// The first pass is due at once (start-up); the first full check one `fullCheck` later.
    public init(intervalSeconds: Int, fullCheckSeconds: Int, now: Int64) {
        interval = Int64(intervalSeconds) * 1000
        fullCheck = Int64(fullCheckSeconds) * 1000
        nextPass = now
        nextFullCheck = now + fullCheck
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
        if full { nextFullCheck = now + fullCheck }
    }

    public mutating func passFinished(_ result: PassResult, at now: Int64) {
        switch result {
        case .done:
            retryDelay = nil
            nextTrigger = .interval
            nextPass = now + interval
        case .retryLater:
            let delay = min(max(Self.firstRetry, (retryDelay ?? 0) * 2), max(interval, Self.firstRetry))
            retryDelay = delay
            nextTrigger = .retry
            nextPass = now + delay
        }
    }

    /// The network came back: retry soon if the last pass was waiting for it.
    public mutating func networkCameBack(at now: Int64) {
        guard retryDelay != nil, nextPass != .max else { return }
        nextTrigger = .networkBack
        nextPass = min(nextPass, now + Self.networkSettle)
    }

    /// New settings (SIGHUP): the next pass keeps its time unless the new interval makes it due sooner.
    public mutating func reconfigure(intervalSeconds: Int, fullCheckSeconds: Int, now: Int64) {
        interval = Int64(intervalSeconds) * 1000
        fullCheck = Int64(fullCheckSeconds) * 1000
        if nextPass != .max { nextPass = min(nextPass, now + interval) }
        nextFullCheck = min(nextFullCheck, now + fullCheck)
    }
}

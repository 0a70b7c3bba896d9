import StatusServer
import SystemSupport

/// A browser's request to be paired, as the main loop follows it: the page asks (the status server keeps the
/// browser's secret, pending), the box's button decides. Pure and driven by the caller's monotonic clock, like
/// `UndoConfirmation`.
///
/// One request at a time: while one waits, another browser's is refused, so that a press pairs the browser the
/// person at the box is holding, never one that asked at the same moment from elsewhere on the network. Asking
/// again from the same address (a second tap of *Pair*) replaces the request and restarts its two minutes.
public struct PairingWindow: Sendable, Equatable {
    /// How long a request waits for the short press.
    public static let deadline = Duration.seconds(120)

    /// The request waiting for the button; nil when none is.
    public private(set) var waiting: PairingRequest?
    /// Monotonic milliseconds until which a short press pairs, while one waits.
    public private(set) var openUntil: Int64?

    public init() {}

    public var isOpen: Bool { waiting != nil }

    /// A browser asks. Returns whether its request now waits for the button: false while another's waits.
    public mutating func request(_ request: PairingRequest, at now: Int64) -> Bool {
        if let waiting, waiting.address != request.address { return false }
        waiting = request
        openUntil = now + Self.deadline.wholeMilliseconds
        return true
    }

    /// A short press: the request it pairs, if one waits and its time has not run out.
    public mutating func button(at now: Int64) -> PairingRequest? {
        guard let request = waiting else { return nil }
        let inTime = now < (openUntil ?? 0)
        close()
        return inTime ? request : nil
    }

    /// Returns the request that expired at `now`, if one did.
    public mutating func expire(at now: Int64) -> PairingRequest? {
        guard let request = waiting, let openUntil, now >= openUntil else { return nil }
        close()
        return request
    }

    /// When the main loop must wake to expire the request; nil when none waits.
    public var nextWake: Int64? { openUntil }

    private mutating func close() {
        waiting = nil
        openUntil = nil
    }
}

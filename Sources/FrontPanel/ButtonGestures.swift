/// Turns the raw level of the sync button, sampled over time, into gestures: a short press (sync now), a long
/// press (≥ 3 s: confirm held deletions, or clear an error and retry) and a hold (≥ 10 s: forget every paired
/// browser), with the moment each threshold is reached reported so the LEDs can acknowledge it while the finger is
/// still down.
///
/// Contacts bounce for a few milliseconds, and a worn or wet button chatters: a level counts only once it has been
/// steady for `debounce`; short presses closer together than `minimumGap` are dropped; a button held far longer
/// than any person would (stuck, or shorted) gives no gesture at all until it is released.
public struct ButtonGestures: Sendable {
    public enum Gesture: Sendable, Equatable {
        case shortPress
        /// The press has lasted `longPress`: acknowledge it now.
        case longPressReached
        /// Released after a long press: act on it.
        case longPress
        /// The press has lasted `hold`: acknowledge it now.
        case holdReached
        /// Released after a hold.
        case hold
    }

    public var debounce = Duration.milliseconds(30)
    public var longPress = Duration.seconds(3)
    public var hold = Duration.seconds(10)
    public var stuckAfter = Duration.seconds(30)
    public var minimumGap = Duration.seconds(1)

    private var rawPressed = false
    private var rawSince: Int64 = 0
    private var pressed = false
    private var pressedSince: Int64 = 0
    private var reachedLong = false
    private var reachedHold = false
    private var stuck = false
    private var lastShortPress: Int64?

    public init() {}

    /// All LEDs on: the long press threshold was reached and the finger is still down.
    public var isAcknowledging: Bool { pressed && reachedLong && !stuck }

    /// The hold's threshold was reached and the finger is still down.
    public var isHolding: Bool { pressed && reachedHold && !stuck }

    /// Whether the caller must keep sampling on a timer: a level is waiting out the debounce, or a press is on
    /// its way to a threshold. Otherwise only a change of level (an edge event) needs a sample.
    public var needsSampling: Bool { rawPressed != pressed || (pressed && !reachedHold && !stuck) }

    /// Feeds one sample (pressed or not, at a time on a monotonic clock in milliseconds) and returns the gestures
    /// it completes.
    public mutating func sample(pressed level: Bool, at now: Int64) -> [Gesture] {
        if level != rawPressed {
            rawPressed = level
            rawSince = now
        }
        var gestures: [Gesture] = []
        if rawPressed != pressed, .milliseconds(now - rawSince) >= debounce {
            pressed = rawPressed
            if pressed {
                pressedSince = rawSince
                reachedLong = false
                reachedHold = false
            } else {
                gestures += release(at: rawSince)
            }
        }
        if pressed, !stuck {
            let held = Duration.milliseconds(now - pressedSince)
            if held >= stuckAfter {
                stuck = true
            } else if held >= hold, !reachedHold {
                reachedHold = true
                gestures.append(.holdReached)
            } else if held >= longPress, !reachedLong {
                reachedLong = true
                gestures.append(.longPressReached)
            }
        }
        return gestures
    }

    private mutating func release(at time: Int64) -> [Gesture] {
        defer { stuck = false }
        if stuck { return [] }
        if reachedHold { return [.hold] }
        if reachedLong { return [.longPress] }
        if let last = lastShortPress, .milliseconds(time - last) < minimumGap { return [] }
        lastShortPress = time
        return [.shortPress]
    }
}

import FrontPanel
import SystemSupport

/// Shows the appliance's state on the LEDs and turns the button into gestures. Owned by the main loop; the
/// hardware is a `GPIOPanel`, the demo's `TerminalPanel`, a `SimulatedPanel`, or none when the panel could not be
/// opened (the daemon goes on without it).
public final class PanelDriver {
    public let hardware: PanelHardware?
    private var state = PanelState.starting
    /// When the current look was put up (monotonic milliseconds): patterns start from there.
    private var since: Int64 = 0
    private var gestures = ButtonGestures()
    public private(set) var levels = LEDLevels.allOff
    /// Set when driving the LEDs failed once, so the log says it once.
    public private(set) var failure: FrontPanelError?

    public init(hardware: PanelHardware?) {
        self.hardware = hardware
    }

    /// What the LEDs show now: the state's look, or the acknowledgement of a long press or a hold while the finger is
    /// down.
    public var look: PanelLook {
        gestures.isHolding
            ? PanelState.forgetting.look : gestures.isAcknowledging ? PanelState.acknowledging.look : state.look
    }

    /// Puts up the look of `state` (patterns restart only when it changes) and drives the LEDs.
    public func show(_ state: PanelState, at now: Int64) {
        if state != self.state {
            self.state = state
            since = now
        }
        refresh(at: now)
    }

    /// Drives the LEDs as the current look says they are at `now`.
    public func refresh(at now: Int64) {
        let wanted = look.levels(at: .milliseconds(now - since))
        guard wanted != levels || failure != nil else { return }
        do {
            try hardware?.show(wanted)
            levels = wanted
            failure = nil
        } catch {
            failure = error
        }
    }

    /// How long until the LEDs or the button need the loop again; nil when nothing changes until an event.
    public func untilNextWake(at now: Int64) -> Duration? {
        let led = look.untilNextChange(after: .milliseconds(now - since))
        let button: Duration? = gestures.needsSampling ? .milliseconds(20) : nil
        return [led, button].compactMap { $0 }.min()
    }

    /// Whether the button must be read on the timer (a press is being debounced or timed).
    public var needsButtonSampling: Bool { hardware != nil && gestures.needsSampling }

    /// Reads the button (after its event descriptor woke the loop, or on the sampling timer) and returns the
    /// gestures it completed. Errors reading the line count as "not pressed".
    public func sampleButton(at now: Int64) -> [ButtonGestures.Gesture] {
        guard let hardware else { return [] }
        hardware.drainButtonEvents()
        let pressed = (try? hardware.isButtonPressed()) ?? false
        let before = look
        let completed = gestures.sample(pressed: pressed, at: now)
        if look != before { refresh(at: now) }
        return completed
    }
}

@available(*, unavailable) extension PanelDriver: Sendable {}

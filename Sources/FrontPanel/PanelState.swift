/// What the front panel shows: a view of the appliance's state (Docs/contributing.md, rule 9), nothing of its own.
public enum PanelState: Sendable, Equatable {
    case starting
    case idle
    /// No address book is set up yet: the status page's *Set up* is where to go.
    case needsSetup
    case syncing
    /// The network or every remote is out of reach; syncing resumes when it comes back.
    case offline
    case attention(Attention)
    /// A long press reached its threshold: all LEDs on until the button is released.
    case acknowledging
    /// An undo was confirmed on the status page and waits for a long press: all LEDs blink slowly together, the
    /// acknowledgement's look (all on) made a question.
    case awaitingLongPress
    /// A browser asked to be paired: a short press within two minutes pairs it.
    case pairing
    /// The button has been held 10 s: on release, every paired browser is forgotten.
    case forgetting
    case stopped

    /// Why a person is needed, shown as a number of flashes of the error LED.
    public enum Attention: Int, Sendable, CaseIterable {
        /// A remote refused the password (1 flash).
        case login = 1
        /// A remote cannot be reached while the network is up (2 flashes).
        case unreachable = 2
        /// Deletions are held for confirmation: a long press confirms (3 flashes).
        case deletionsHeld = 3
        /// The store or the disk has a problem (4 flashes).
        case storage = 4
    }

    /// The three LEDs for this state. The README's table is this function in words.
    public var look: PanelLook {
        switch self {
        case .starting: PanelLook(power: .blink(hertz: 4), sync: .off, error: .off)
        case .idle: PanelLook(power: .on, sync: .off, error: .off)
        case .needsSetup: PanelLook(power: .on, sync: .doubleFlash, error: .off)
        case .syncing: PanelLook(power: .on, sync: .blink(hertz: 2), error: .off)
        case .offline: PanelLook(power: .doubleFlash, sync: .off, error: .off)
        case .attention(let reason): PanelLook(power: .on, sync: .off, error: .flashes(reason.rawValue))
        case .acknowledging: PanelLook(power: .on, sync: .on, error: .on)
        case .awaitingLongPress:
            PanelLook(power: .blink(hertz: 0.5), sync: .blink(hertz: 0.5), error: .blink(hertz: 0.5))
        case .pairing: PanelLook(power: .on, sync: .on, error: .off)
        case .forgetting: PanelLook(power: .blink(hertz: 4), sync: .blink(hertz: 4), error: .blink(hertz: 4))
        case .stopped: PanelLook(power: .off, sync: .off, error: .off)
        }
    }
}

/// The pattern of each LED.
public struct PanelLook: Sendable, Equatable {
    public var power: LEDPattern
    public var sync: LEDPattern
    public var error: LEDPattern

    /// Which LEDs are lit `elapsed` after the look was put up.
    public func levels(at elapsed: Duration) -> LEDLevels {
        LEDLevels(power: power.isOn(at: elapsed), sync: sync.isOn(at: elapsed), error: error.isOn(at: elapsed))
    }
}

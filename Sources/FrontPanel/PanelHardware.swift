/// Which of the three LEDs are lit.
public struct LEDLevels: Sendable, Equatable {
    public var power: Bool
    public var sync: Bool
    public var error: Bool

    public init(power: Bool, sync: Bool, error: Bool) {
        self.power = power
        self.sync = sync
        self.error = error
    }

    public static let allOff = LEDLevels(power: false, sync: false, error: false)
}

/// A key standing in for the button, on a panel whose button is a keyboard (the demo's terminal).
public enum PanelKey: Sendable, Equatable {
    case shortPress, longPress
    /// Stop the daemon (q, or the end of the input).
    case quit
}

/// The front panel's hardware: three LEDs and one button. `GPIOPanel` drives real lines through libgpiod;
/// `SimulatedPanel` keeps them in memory for the tests; the daemon's `TerminalPanel` draws them in the demo's
/// terminal and reads keys for the button. The daemon's main loop owns the one instance (it is not shared between
/// threads) and drives each the same way, so it never needs to know which one it has: what only the terminal does
/// (keys, a line of text, terminal modes to put back) has a default that does nothing.
public protocol PanelHardware: AnyObject {
    /// Drives the LEDs (active levels already applied: `true` is lit).
    func show(_ levels: LEDLevels) throws(FrontPanelError)
    /// Whether the button is held down now (active level applied).
    func isButtonPressed() throws(FrontPanelError) -> Bool
    /// A descriptor that poll(2) reports readable when the button changes level; nil when the button must be
    /// sampled on a timer instead.
    var buttonEventDescriptor: Int32? { get }
    /// Reads and discards the button events that woke poll(2); the level is then read with `isButtonPressed()`.
    func drainButtonEvents()
    /// The keys `drainButtonEvents()` read, oldest first, on a panel whose button is a keyboard.
    func takeKeys() -> [PanelKey]
    /// Shows the appliance's one-line summary on a panel with room for text, at every turn of the main loop.
    func showSummary(_ summary: String)
    /// The daemon is stopping: puts back what the panel changed beyond its lines (the terminal's modes).
    func release()
}

extension PanelHardware {
    /// Three LEDs and a button: no keys, no text, nothing to put back.
    public func takeKeys() -> [PanelKey] { [] }
    public func showSummary(_ summary: String) {}
    public func release() {}
}

/// A front-panel failure a person can act on: it names the chip, the line and the board file.
public struct FrontPanelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for code that reacts differently (the message is for people).
    public enum Kind: Sendable, Equatable {
        /// No GPIO chip with the board file's label, name or path.
        case chipNotFound
        /// The chip has no such line offset or line name.
        case lineNotFound
        /// Another program (or the kernel, or another part of the panel) holds the line.
        case lineBusy
        /// The GPIO character device may not be opened by this user.
        case permissionDenied
        /// A request, read or write failed at the device.
        case hardware
        case other
    }

    public var kind: Kind
    public var message: String

    public init(_ message: String, kind: Kind = .other) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

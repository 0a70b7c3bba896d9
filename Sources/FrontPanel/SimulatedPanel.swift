/// The front panel without hardware: the status page mirrors it, tests press its button, and the demo's
/// `TerminalPanel` keeps its LEDs in one and draws them in the terminal.
public final class SimulatedPanel: PanelHardware {
    public private(set) var levels = LEDLevels.allOff
    public var buttonPressed = false

    public init() {}

    public func show(_ levels: LEDLevels) throws(FrontPanelError) {
        self.levels = levels
    }

    public func isButtonPressed() throws(FrontPanelError) -> Bool { buttonPressed }

    public var buttonEventDescriptor: Int32? { nil }

    public func drainButtonEvents() {}

    /// One terminal line: `[●] power  [○] sync  [○] error`.
    public func rendered() -> String {
        func lamp(_ on: Bool, _ name: String) -> String { (on ? "[●] " : "[○] ") + name }
        return [lamp(levels.power, "power"), lamp(levels.sync, "sync"), lamp(levels.error, "error")]
            .joined(separator: "  ")
    }
}

@available(*, unavailable) extension SimulatedPanel: Sendable {}

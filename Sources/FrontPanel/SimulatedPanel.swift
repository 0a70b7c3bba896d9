/// The front panel without hardware: the demo draws it in the terminal, the status page mirrors it, and unit
/// tests press its button.
public final class SimulatedPanel {
    public private(set) var levels: (power: Bool, sync: Bool, error: Bool) = (false, false, false)
    /// Button samples queued by a test or the demo's keyboard: (pressed, at milliseconds).
    private var samples: [(Bool, Int64)] = []

    public init() {}

    public func show(_ levels: (power: Bool, sync: Bool, error: Bool)) {
        self.levels = levels
    }

    public func setButton(pressed: Bool, at milliseconds: Int64) {
        samples.append((pressed, milliseconds))
    }

    public func takeButtonSamples() -> [(pressed: Bool, at: Int64)] {
        defer { samples.removeAll() }
        return samples.map { (pressed: $0.0, at: $0.1) }
    }

    /// One terminal line: `[●] power  [○] sync  [○] error`.
    public func rendered() -> String {
        func lamp(_ on: Bool, _ name: String) -> String { (on ? "[●] " : "[○] ") + name }
        return [lamp(levels.power, "power"), lamp(levels.sync, "sync"), lamp(levels.error, "error")]
            .joined(separator: "  ")
    }
}

@available(*, unavailable) extension SimulatedPanel: Sendable {}

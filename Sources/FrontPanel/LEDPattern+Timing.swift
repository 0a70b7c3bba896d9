import SystemSupport

extension LEDPattern: CustomStringConvertible {
    /// For people (the status page): "off", "steady", "blinking 2 Hz", "double flash", "3 flashes".
    public var description: String {
        if cycle.count <= 1 || cycle.allSatisfy({ $0.on == cycle[0].on }) {
            return (cycle.first?.on ?? false) ? "steady" : "off"
        }
        if self == .doubleFlash { return "double flash" }
        let flashes = cycle.filter(\.on).count
        if cycle.count == 2, cycle[0].length == cycle[1].length {
            let hertz = 1000 / Double(period.wholeMilliseconds)
            return hertz == hertz.rounded() ? "blinking \(Int(hertz)) Hz" : "blinking \(hertz) Hz"
        }
        return flashes == 1 ? "1 flash" : "\(flashes) flashes"
    }

    /// How long after `elapsed` (since the pattern started) the LED next changes; nil for a steady LED. The
    /// daemon sleeps until then instead of waking on a fixed tick.
    public func untilNextChange(after elapsed: Duration) -> Duration? {
        guard cycle.count > 1, period > .zero, !cycle.allSatisfy({ $0.on == cycle[0].on }) else { return nil }
        let offset = offsetInCycle(elapsed)
        var boundary = Duration.zero
        for (index, phase) in cycle.enumerated() {
            boundary += phase.length
            let next = cycle[(index + 1) % cycle.count]
            if boundary > offset, next.on != phase.on { return boundary - offset }
        }
        // Past the last change in this cycle: the first change of the next one.
        return period - offset + (untilNextChange(after: .zero) ?? .zero)
    }
}

extension PanelLook {
    /// How long after `elapsed` any of the three LEDs next changes; nil when all are steady.
    public func untilNextChange(after elapsed: Duration) -> Duration? {
        [power, sync, error].compactMap { $0.untilNextChange(after: elapsed) }.min()
    }
}

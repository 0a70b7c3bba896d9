/// How one LED behaves over time: a cycle of on and off phases, repeated. Patterns are chosen to be told apart
/// from across a room: steady, a slow blink, a fast blink, a double flash, and counted flashes with a long pause.
public struct LEDPattern: Sendable, Equatable {
    public struct Phase: Sendable, Equatable {
        public var on: Bool
        public var length: Duration
    }

    /// One cycle; an empty cycle or a single phase is a steady state.
    public var cycle: [Phase]

    public init(_ cycle: [Phase]) {
        self.cycle = cycle
    }

    public static let off = LEDPattern([Phase(on: false, length: .seconds(1))])
    public static let on = LEDPattern([Phase(on: true, length: .seconds(1))])

    /// Even on and off halves: 2 Hz reads as "busy", 0.5 Hz as "waiting".
    public static func blink(hertz: Double) -> LEDPattern {
        let half = Duration.milliseconds(Int64(500 / hertz))
        return LEDPattern([Phase(on: true, length: half), Phase(on: false, length: half)])
    }

    /// Two short flashes, then a pause: a heartbeat, for "no network, waiting for it".
    public static let doubleFlash = LEDPattern([
        Phase(on: true, length: .milliseconds(150)), Phase(on: false, length: .milliseconds(150)),
        Phase(on: true, length: .milliseconds(150)), Phase(on: false, length: .milliseconds(1550)),
    ])

    /// `count` flashes of 300 ms, then 1.5 s dark, so a person can count them: the kind of error.
    public static func flashes(_ count: Int) -> LEDPattern {
        var phases: [Phase] = []
        for _ in 0..<max(1, count) {
            phases += [Phase(on: true, length: .milliseconds(300)), Phase(on: false, length: .milliseconds(300))]
        }
        phases[phases.count - 1].length = .milliseconds(1500)
        return LEDPattern(phases)
    }

    public var period: Duration { cycle.reduce(.zero) { $0 + $1.length } }

    /// Whether the LED is lit `elapsed` after the pattern started.
    public func isOn(at elapsed: Duration) -> Bool {
        guard cycle.count > 1, period > .zero else { return cycle.first?.on ?? false }
        var offset = offsetInCycle(elapsed)
        for phase in cycle {
            if offset < phase.length { return phase.on }
            offset -= phase.length
        }
        return cycle.last?.on ?? false
    }

    /// Where `elapsed` falls in one cycle, from zero up to the period (before the start too); the period must be
    /// positive.
    func offsetInCycle(_ elapsed: Duration) -> Duration {
        let period = period.attoseconds
        return Duration(attoseconds: ((elapsed.attoseconds % period) + period) % period)
    }
}

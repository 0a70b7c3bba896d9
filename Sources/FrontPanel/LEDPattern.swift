/// How one LED behaves over time: a cycle of on and off phases, repeated. Patterns are chosen to be told apart
/// from across a room: steady, a slow blink, a fast blink, a double flash, and counted flashes with a long pause.
public struct LEDPattern: Sendable, Equatable {
    public struct Phase: Sendable, Equatable {
        public var on: Bool
        public var milliseconds: Int64
    }

    /// One cycle; an empty cycle or a single phase is a steady state.
    public var cycle: [Phase]

    public init(_ cycle: [Phase]) {
        self.cycle = cycle
    }

    public static let off = LEDPattern([Phase(on: false, milliseconds: 1000)])
    public static let on = LEDPattern([Phase(on: true, milliseconds: 1000)])

    /// Even on and off halves: 2 Hz reads as "busy", 0.5 Hz as "waiting".
    public static func blink(hertz: Double) -> LEDPattern {
        let half = Int64(500 / hertz)
        return LEDPattern([Phase(on: true, milliseconds: half), Phase(on: false, milliseconds: half)])
    }

    /// Two short flashes, then a pause: a heartbeat, for "no network, waiting for it".
    public static let doubleFlash = LEDPattern([
        Phase(on: true, milliseconds: 150), Phase(on: false, milliseconds: 150),
        Phase(on: true, milliseconds: 150), Phase(on: false, milliseconds: 1550),
    ])

    /// `count` flashes of 300 ms, then 1.5 s dark, so a person can count them: the kind of error.
    public static func flashes(_ count: Int) -> LEDPattern {
        var phases: [Phase] = []
        for _ in 0..<max(1, count) {
            phases += [Phase(on: true, milliseconds: 300), Phase(on: false, milliseconds: 300)]
        }
        phases[phases.count - 1].milliseconds = 1500
        return LEDPattern(phases)
    }

    public var period: Int64 { cycle.reduce(0) { $0 + $1.milliseconds } }

    /// Whether the LED is lit `milliseconds` after the pattern started.
    public func isOn(at milliseconds: Int64) -> Bool {
        guard cycle.count > 1, period > 0 else { return cycle.first?.on ?? false }
        var offset = ((milliseconds % period) + period) % period
        for phase in cycle {
            if offset < phase.milliseconds { return phase.on }
            offset -= phase.milliseconds
        }
        return cycle.last?.on ?? false
    }
}

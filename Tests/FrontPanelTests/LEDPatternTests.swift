import Testing

@testable import FrontPanel

@Suite("LED patterns")
struct LEDPatternTests {
    /// The LED's level every 50 ms over `span`, as a string of 1s and 0s.
    func trace(_ pattern: LEDPattern, _ span: Duration) -> String {
        sequence(first: Duration.zero) { $0 + .milliseconds(50) }.prefix { $0 < span }
            .map { pattern.isOn(at: $0) ? "1" : "0" }.joined()
    }

    @Test("steady patterns never change")
    func steady() {
        #expect(trace(.on, .seconds(5)).allSatisfy { $0 == "1" })
        #expect(trace(.off, .seconds(5)).allSatisfy { $0 == "0" })
    }

    @Test("a 2 Hz blink is on 250 ms, off 250 ms, and repeats")
    func blink() {
        #expect(trace(.blink(hertz: 2), .seconds(1)) == "11111000001111100000")
        #expect(LEDPattern.blink(hertz: 2).isOn(at: .milliseconds(10_000)) == true)
        #expect(LEDPattern.blink(hertz: 2).isOn(at: .milliseconds(10_250)) == false)
    }

    @Test("counted flashes can be counted: n flashes, then a long dark pause", arguments: 1...4)
    func countedFlashes(count: Int) {
        let pattern = LEDPattern.flashes(count)
        let cycle = trace(pattern, pattern.period)
        let flashes = cycle.split(separator: "0", omittingEmptySubsequences: true).count
        #expect(flashes == count)
        #expect(cycle.hasSuffix(String(repeating: "0", count: 30)))  // 1.5 s dark
    }

    @Test("every state has a look a person can tell from every other")
    func statesAreDistinct() {
        var states: [PanelState] = [.starting, .idle, .syncing, .offline, .acknowledging, .awaitingLongPress, .stopped]
        states += PanelState.Attention.allCases.map { .attention($0) }
        let traces = states.map { state in
            let look = state.look
            return [look.power, look.sync, look.error].map { trace($0, .seconds(6)) }.joined(separator: "|")
        }
        #expect(Set(traces).count == states.count)
        #expect(PanelState.stopped.look.levels(at: .milliseconds(1234)) == .allOff)
        // Waiting for the long press that confirms an undo: all three together, one second on, one off.
        #expect(
            PanelState.awaitingLongPress.look.levels(at: .milliseconds(500))
                == LEDLevels(power: true, sync: true, error: true))
        #expect(PanelState.awaitingLongPress.look.levels(at: .milliseconds(1500)) == .allOff)
        #expect(PanelState.awaitingLongPress.look.power.description == "blinking 0.5 Hz")
        #expect(
            PanelState.idle.look.levels(at: .milliseconds(1234)) == LEDLevels(power: true, sync: false, error: false))
    }
}

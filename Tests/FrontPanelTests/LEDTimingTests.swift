import Testing

@testable import FrontPanel

@Suite("LED timing")
struct LEDTimingTests {
    @Test("a steady LED never needs a wake-up; a blinking one at each change")
    func nextChange() {
        #expect(LEDPattern.on.untilNextChange(after: .milliseconds(123)) == nil)
        #expect(LEDPattern.off.untilNextChange(after: .zero) == nil)
        let blink = LEDPattern.blink(hertz: 2)
        #expect(blink.untilNextChange(after: .zero) == .milliseconds(250))
        #expect(blink.untilNextChange(after: .milliseconds(100)) == .milliseconds(150))
        #expect(blink.untilNextChange(after: .milliseconds(300)) == .milliseconds(200))
        #expect(blink.untilNextChange(after: .milliseconds(1_250)) == .milliseconds(250))
    }

    @Test("the wake-ups land exactly where the LED changes, over several cycles of every pattern")
    func wakeUpsMatchChanges() {
        let patterns: [LEDPattern] =
            [.blink(hertz: 2), .blink(hertz: 4), .doubleFlash] + (1...4).map(LEDPattern.flashes)
        for pattern in patterns {
            var time = Duration.zero
            while time < pattern.period * 3 {
                guard let step = pattern.untilNextChange(after: time) else {
                    Issue.record("\(pattern) never changes")
                    return
                }
                #expect(step > .zero)
                // Steady until the wake-up, different right at it.
                #expect(pattern.isOn(at: time + step - .milliseconds(1)) == pattern.isOn(at: time))
                #expect(pattern.isOn(at: time + step) != pattern.isOn(at: time))
                time += step
            }
        }
    }

    @Test("patterns describe themselves in words for the status page")
    func descriptions() {
        #expect(LEDPattern.on.description == "steady")
        #expect(LEDPattern.off.description == "off")
        #expect(LEDPattern.blink(hertz: 2).description == "blinking 2 Hz")
        #expect(LEDPattern.doubleFlash.description == "double flash")
        #expect(LEDPattern.flashes(3).description == "3 flashes")
        #expect(LEDPattern.flashes(1).description == "1 flash")
    }
}

import Testing

@testable import FrontPanel

@Suite("Button gestures")
struct ButtonGesturesTests {
    /// Samples every 10 ms from `from` to `to` at one level; returns the gestures with their times.
    func hold(_ buttons: inout ButtonGestures, pressed: Bool, from: Int64, to: Int64) -> [(
        Int64, ButtonGestures.Gesture
    )] {
        var result: [(Int64, ButtonGestures.Gesture)] = []
        for time in stride(from: from, to: to, by: 10) {
            result += buttons.sample(pressed: pressed, at: time).map { (time, $0) }
        }
        return result
    }

    @Test("a short press gives one short press when released")
    func shortPress() {
        var buttons = ButtonGestures()
        var gestures = hold(&buttons, pressed: true, from: 0, to: 200)
        #expect(gestures.isEmpty)
        gestures = hold(&buttons, pressed: false, from: 200, to: 400)
        #expect(gestures.map(\.1) == [.shortPress])
    }

    @Test("bouncing contacts give one press, not many")
    func bounceIsFiltered() {
        var buttons = ButtonGestures()
        var gestures: [ButtonGestures.Gesture] = []
        // 5 ms bounces for 25 ms, then a clean 150 ms press, then bounces on release.
        for (index, time) in stride(from: 0, to: 25, by: 5).enumerated() {
            gestures += buttons.sample(pressed: index % 2 == 0, at: Int64(time))
        }
        gestures += hold(&buttons, pressed: true, from: 25, to: 200).map(\.1)
        for (index, time) in stride(from: 200, to: 225, by: 5).enumerated() {
            gestures += buttons.sample(pressed: index % 2 == 1, at: Int64(time))
        }
        gestures += hold(&buttons, pressed: false, from: 225, to: 500).map(\.1)
        #expect(gestures == [.shortPress])
    }

    @Test("a long press is acknowledged at 3 s while held, and acted on at release")
    func longPress() {
        var buttons = ButtonGestures()
        let held = hold(&buttons, pressed: true, from: 0, to: 4000)
        #expect(held.map(\.1) == [.longPressReached])
        #expect((3000...3040).contains(held.first?.0 ?? 0))
        #expect(hold(&buttons, pressed: false, from: 4000, to: 4200).map(\.1) == [.longPress])
    }

    @Test("a hold of 10 s is acknowledged while held and acted on at release, instead of the long press")
    func holdTenSeconds() {
        var buttons = ButtonGestures()
        let held = hold(&buttons, pressed: true, from: 0, to: 11_000)
        #expect(held.map(\.1) == [.longPressReached, .holdReached])
        #expect((10_000...10_040).contains(held.last?.0 ?? 0))
        #expect(buttons.isHolding && buttons.isAcknowledging)
        #expect(!buttons.needsSampling)
        #expect(hold(&buttons, pressed: false, from: 11_000, to: 11_200).map(\.1) == [.hold])
        #expect(!buttons.isHolding)
    }

    @Test("a chattering button cannot start a storm of syncs")
    func chatterIsRateLimited() {
        var buttons = ButtonGestures()
        var gestures: [ButtonGestures.Gesture] = []
        // 50 clean 60 ms presses, 60 ms apart, over 6 seconds.
        for press in 0..<50 {
            let start = Int64(press) * 120
            gestures += hold(&buttons, pressed: true, from: start, to: start + 60).map(\.1)
            gestures += hold(&buttons, pressed: false, from: start + 60, to: start + 120).map(\.1)
        }
        #expect(gestures.allSatisfy { $0 == .shortPress })
        #expect(gestures.count <= 7)  // at most one a second
        #expect(gestures.count >= 5)
    }

    @Test("a stuck button gives no gesture, and the button works again once released")
    func stuckButton() {
        var buttons = ButtonGestures()
        let held = hold(&buttons, pressed: true, from: 0, to: 40_000)
        #expect(held.map(\.1) == [.longPressReached, .holdReached])
        #expect(!buttons.isHolding)
        #expect(hold(&buttons, pressed: false, from: 40_000, to: 40_500).isEmpty)
        _ = hold(&buttons, pressed: true, from: 42_000, to: 42_200)
        #expect(hold(&buttons, pressed: false, from: 42_200, to: 42_400).map(\.1) == [.shortPress])
    }

    @Test("the simulated panel draws its LEDs and reports its button")
    func simulatedPanel() throws {
        let panel = SimulatedPanel()
        try panel.show(PanelState.syncing.look.levels(at: .zero))
        #expect(panel.rendered() == "[●] power  [●] sync  [○] error")
        #expect(try panel.isButtonPressed() == false)
        panel.buttonPressed = true
        #expect(try panel.isButtonPressed())
    }
}

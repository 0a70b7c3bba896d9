import FrontPanel
import Testing

@testable import Appliance

@Suite("The demo's terminal panel")
struct TerminalPanelTests {
    @Test("keys stand in for the button: s, space and Enter press it, l holds it, q stops, others do nothing")
    func keys() {
        #expect(
            TerminalPanel.keys(Array("s Sx\nlLqQ".utf8))
                == [.shortPress, .shortPress, .shortPress, .shortPress, .longPress, .longPress, .quit, .quit])
    }

    @Test("a panel of LEDs and a button has no keys, and ignores the text and the release the terminal needs")
    func ledsOnly() throws {
        let simulated = SimulatedPanel()
        let panel: PanelHardware = simulated
        panel.showSummary("Idle: everything is in step")
        panel.release()
        #expect(panel.takeKeys().isEmpty)
        try panel.show(LEDLevels(power: true, sync: false, error: false))
        #expect(simulated.levels == LEDLevels(power: true, sync: false, error: false))
    }
}

import FrontPanel
import Testing

@testable import Appliance

@Suite("Panel driver")
struct PanelDriverTests {
    @Test("the LEDs follow the state's look over time")
    func followsState() {
        let hardware = SimulatedPanel()
        let driver = PanelDriver(hardware: hardware)
        driver.show(.idle, at: 0)
        #expect(hardware.levels == LEDLevels(power: true, sync: false, error: false))
        #expect(driver.untilNextWake(at: 0) == nil)
        driver.show(.syncing, at: 1_000)
        #expect(hardware.levels.sync)
        #expect(driver.untilNextWake(at: 1_000) == .milliseconds(250))
        driver.refresh(at: 1_300)
        #expect(!hardware.levels.sync)
        driver.show(.stopped, at: 2_000)
        #expect(hardware.levels == .allOff)
    }

    @Test("a long press lights every LED while held, then reports the gesture on release")
    func longPress() {
        let hardware = SimulatedPanel()
        let driver = PanelDriver(hardware: hardware)
        driver.show(.attention(.deletionsHeld), at: 0)
        hardware.buttonPressed = true
        var gestures: [ButtonGestures.Gesture] = []
        var now: Int64 = 0
        while now <= 3_100 {
            gestures += driver.sampleButton(at: now)
            #expect(driver.needsButtonSampling || now >= 3_000)
            now += 20
        }
        #expect(gestures == [.longPressReached])
        #expect(hardware.levels == LEDLevels(power: true, sync: true, error: true))
        hardware.buttonPressed = false
        gestures += driver.sampleButton(at: 3_200)
        gestures += driver.sampleButton(at: 3_240)
        #expect(gestures == [.longPressReached, .longPress])
        #expect(!driver.needsButtonSampling)
        driver.refresh(at: 3_240)
        #expect(!hardware.levels.sync)
    }

    @Test("a 10 s hold blinks every LED fast while held: let go now and every paired browser is forgotten")
    func hold() {
        let hardware = SimulatedPanel()
        let driver = PanelDriver(hardware: hardware)
        driver.show(.idle, at: 0)
        hardware.buttonPressed = true
        var gestures: [ButtonGestures.Gesture] = []
        var now: Int64 = 0
        while now <= 10_100 {
            gestures += driver.sampleButton(at: now)
            now += 20
        }
        #expect(gestures == [.longPressReached, .holdReached])
        #expect(driver.look == PanelState.forgetting.look)
        #expect(driver.untilNextWake(at: now) != nil)
        hardware.buttonPressed = false
        gestures += driver.sampleButton(at: now)
        gestures += driver.sampleButton(at: now + 40)
        #expect(gestures.last == .hold)
        #expect(driver.look == PanelState.idle.look)
    }

    @Test("without hardware the driver keeps going and reads no button")
    func noHardware() {
        let driver = PanelDriver(hardware: nil)
        driver.show(.syncing, at: 0)
        #expect(driver.sampleButton(at: 10).isEmpty)
        #expect(!driver.needsButtonSampling)
    }
}

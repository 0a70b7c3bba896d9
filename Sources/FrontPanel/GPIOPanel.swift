import CGPIOD
import Glibc
import SystemSupport

/// The front panel on real GPIO lines, through libgpiod 1.6 (the v1 API of Debian 12 and Raspberry Pi OS bookworm)
/// and the kernel's GPIO character device.
///
/// The object owns the chip handle and the four line requests from `init` to `deinit` (Docs/contributing.md, rule 2):
/// while it lives, `gpioinfo` shows the lines as used by `consumer`, and no other program can drive them. It belongs to
/// the daemon's main loop and must not cross threads.
public final class GPIOPanel: PanelHardware {
    /// The chip's kernel name (`gpiochip0`) and label (`pinctrl-bcm2711`), for the log.
    public let chipName: String
    public let chipLabel: String
    public let buttonEventDescriptor: Int32?

    private let chip: OpaquePointer
    private let power: RequestedLine
    private let sync: RequestedLine
    private let error: RequestedLine
    private let button: RequestedLine
    private let source: String
    /// What the LEDs show now: `show` writes only the lines whose level changes, which keeps a steady panel free
    /// of ioctls between blinks.
    private var shown = LEDLevels.allOff

    /// Opens the chip and requests the lines: the LEDs as outputs, off, and the button for events on both edges.
    /// Throws an error that names the chip, the line and the board file.
    public convenience init(_ wiring: PanelWiring, consumer: String = "contactbox") throws(FrontPanelError) {
        try self.init(wiring, consumer: consumer, deviceDirectory: "/dev")
    }

    /// `deviceDirectory` is where the `gpiochipN` devices are looked for (tests use a folder of their own).
    init(_ wiring: PanelWiring, consumer: String, deviceDirectory: String) throws(FrontPanelError) {
        let chip = try GPIOChipLookup(source: wiring.source, deviceDirectory: deviceDirectory).open(wiring.chip)
        let lines: PanelLines
        do {
            lines = try Self.requestLines(on: chip, wiring, consumer: consumer)
        } catch {
            // > gpiod_chip_close: "Close a GPIO chip handle and release all allocated resources." That includes
            // the lines requested before the one that failed.
            gpiod_chip_close(chip)
            throw error
        }
        self.chip = chip
        chipName = String(cString: gpiod_chip_name(chip))
        chipLabel = String(cString: gpiod_chip_label(chip))
        (power, sync, error, button) = (lines.power, lines.sync, lines.error, lines.button)
        source = wiring.source
        // > gpiod_line_event_get_fd: "-1 if the user tries to retrieve the descriptor from a line that wasn't
        // > configured for event monitoring." The button was; should it still fail, the loop samples on a timer.
        let descriptor = gpiod_line_event_get_fd(button.handle)
        buttonEventDescriptor = descriptor >= 0 ? descriptor : nil
    }

    deinit {
        // Releasing an output leaves it at its last level on most GPIO drivers: the daemon shows `.allOff` before
        // it lets go of the panel, so that a stopped box is dark.
        gpiod_chip_close(chip)
    }

    public func show(_ levels: LEDLevels) throws(FrontPanelError) {
        if levels.power != shown.power {
            try drive(power, levels.power)
            shown.power = levels.power
        }
        if levels.sync != shown.sync {
            try drive(sync, levels.sync)
            shown.sync = levels.sync
        }
        if levels.error != shown.error {
            try drive(error, levels.error)
            shown.error = levels.error
        }
    }

    public func isButtonPressed() throws(FrontPanelError) -> Bool {
        // The button was requested with GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW when its board says so: the kernel then
        // reports the logical value, 1 for pressed, whichever way the button is wired.
        let value = gpiod_line_get_value(button.handle)
        guard value >= 0 else { throw failure("cannot read", button, errno) }
        return value == 1
    }

    public func drainButtonEvents() {
        // Only the current level matters (read by isButtonPressed); the events are read to clear the descriptor.
        // A zero timeout makes gpiod_line_event_wait a poll, so reading never blocks. The kernel queues at most 16
        // events per line, so a few rounds empty it; a chattering button that refills it wakes the loop again.
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        withUnsafeTemporaryAllocation(of: gpiod_line_event.self, capacity: 16) { events in
            guard let base = events.baseAddress else { return }
            for _ in 0..<4 {
                // > gpiod_line_event_wait: "0 if wait timed out, -1 if an error occurred, 1 if an event occurred."
                guard gpiod_line_event_wait(button.handle, &zero) == 1 else { return }
                guard gpiod_line_event_read_multiple(button.handle, base, UInt32(events.count)) > 0 else { return }
            }
        }
    }

    private func drive(_ line: RequestedLine, _ on: Bool) throws(FrontPanelError) {
        // Logical values: with GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW the kernel inverts them on the wire.
        guard gpiod_line_set_value(line.handle, on ? 1 : 0) == 0 else {
            throw failure("cannot switch \(on ? "on" : "off")", line, errno)
        }
    }

    private func failure(_ what: String, _ line: RequestedLine, _ code: Int32) -> FrontPanelError {
        FrontPanelError(
            "\(what) \(line.part) (\(line.place)): \(SystemError.text(code)) (board file \(source))",
            kind: .hardware)
    }
}

@available(*, unavailable) extension GPIOPanel: Sendable {}

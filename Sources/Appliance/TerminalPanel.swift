import FrontPanel
import Glibc

/// The demo's front panel in a terminal: one line with the three LEDs and the state, redrawn in place, and keys
/// standing in for the button (s: short press, l: long press, q: stop). A `PanelHardware` like the GPIO one, so the
/// main loop polls its descriptor (stdin) and reads its keys with no special case. Only used when both stdin and
/// stdout are terminals; the terminal is put back as it was by `release()`.
public final class TerminalPanel: PanelHardware {
    private let lamps = SimulatedPanel()
    private var keys: [PanelKey] = []
    private var saved = termios()
    private var raw = false
    private var drawn = false

    /// Both ends are a terminal, and this process is in its foreground: changing the terminal's modes from the
    /// background would stop the process (SIGTTOU), as `contactbox run &` in a shell would.
    public static var isAvailable: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp()
    }

    public init() {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var settings = saved
        // Keys arrive one at a time, without Enter and without echo.
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw = tcsetattr(STDIN_FILENO, TCSANOW, &settings) == 0
        draw("Front panel (keys: s = press the sync button, l = long press to confirm, q = stop):\n")
    }

    public func show(_ levels: LEDLevels) throws(FrontPanelError) {
        try lamps.show(levels)
    }

    /// The keys are the button: it is never held down.
    public func isButtonPressed() throws(FrontPanelError) -> Bool { false }

    public var buttonEventDescriptor: Int32? { STDIN_FILENO }

    /// Reads the keys typed since the last call, when there are any: never blocks the main loop.
    public func drainButtonEvents() {
        var entry = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        // The end of the input (the terminal closed) stops the demo, as q does.
        guard count > 0 else {
            if count == 0 { keys.append(.quit) }
            return
        }
        keys += Self.keys(buffer[..<count])
    }

    public func takeKeys() -> [PanelKey] {
        defer { keys.removeAll() }
        return keys
    }

    /// Redraws the panel line in place, at every turn of the main loop: a log line may have cleared it since.
    public func showSummary(_ summary: String) {
        draw("\r\u{1B}[2K  " + lamps.rendered() + "   " + summary)
        drawn = true
    }

    public func release() {
        if raw { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        raw = false
        if drawn { draw("\n") }
        drawn = false
    }

    /// What typed bytes mean; other keys do nothing.
    static func keys(_ bytes: some Sequence<UInt8>) -> [PanelKey] {
        bytes.compactMap { byte in
            switch byte {
            case UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: " "), UInt8(ascii: "\n"): .shortPress
            case UInt8(ascii: "l"), UInt8(ascii: "L"): .longPress
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): .quit
            default: nil
            }
        }
    }

    private func draw(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(STDOUT_FILENO, &bytes, bytes.count)
    }

    deinit { release() }
}

@available(*, unavailable) extension TerminalPanel: Sendable {}

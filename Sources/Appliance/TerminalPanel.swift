import FrontPanel
import Glibc

/// The demo's front panel in a terminal: one line with the three LEDs and the state, redrawn in place, and keys
/// standing in for the button (s: short press, l: long press, q: stop). Only used when both stdin and stdout are
/// terminals; the terminal is put back as it was by `restore()`.
public final class TerminalPanel {
    public enum Key: Sendable, Equatable {
        case shortPress, longPress, quit
    }

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

    public var descriptor: Int32 { STDIN_FILENO }

    public func restore() {
        if raw { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        raw = false
        if drawn { draw("\n") }
        drawn = false
    }

    /// Redraws the panel line in place, at every turn of the main loop: a log line may have cleared it since.
    public func show(_ panel: SimulatedPanel, summary: String) {
        draw("\r\u{1B}[2K  " + panel.rendered() + "   " + summary)
        drawn = true
    }

    /// The keys typed since the last call.
    public func readKeys() -> [Key] {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        guard count > 0 else { return count == 0 ? [.quit] : [] }
        return buffer[..<count].compactMap { byte in
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

    deinit { restore() }
}

@available(*, unavailable) extension TerminalPanel: Sendable {}

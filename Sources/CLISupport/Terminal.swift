import Glibc
import SystemSupport

/// Output for people: messages on stderr, data on stdout, and a progress bar only when stderr is a terminal.
public enum Terminal {
    public static let isInteractive = isatty(STDERR_FILENO) == 1

    /// Under systemd, an error line starts with sd-daemon(3)'s `<3>`: the journal then files it as an error.
    /// Unprefixed, it was filed at the stream's default priority, info, and `journalctl -p err` did not show why
    /// the service failed to start (a configuration error, exit 78).
    public static func error(_ message: String) {
        write((stderrIsJournal ? "<3>" : "") + "contactbox: " + message + "\n")
    }

    /// Whether stderr is systemd's journal stream: `$JOURNAL_STREAM` names its device and inode (systemd.exec(5)),
    /// compared with stderr's own, so that a program started from such a service with stderr elsewhere (a pipe,
    /// a terminal) writes no prefix.
    public static let stderrIsJournal: Bool = {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            fstat(STDERR_FILENO, &status) == 0
        else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()

    /// Something a person should know that does not stop the command: `<4>` (warning) under systemd.
    public static func warning(_ message: String) {
        write((stderrIsJournal ? "<4>" : "") + "contactbox: warning: " + message + "\n")
    }

    /// Something the command did that a person should see, in the words of an error but not one (`<5>` under
    /// systemd).
    public static func notice(_ message: String) {
        write((stderrIsJournal ? "<5>" : "") + "contactbox: " + message + "\n")
    }

    public static func note(_ message: String) {
        write(message + "\n")
    }

    /// Straight to file descriptor 2: unbuffered, like stderr, and free of C's global `FILE *` state.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// A one-line progress bar on stderr, redrawn at most ten times a second; silent when stderr is not a terminal.
public struct ProgressBar {
    private(set) var label: String
    private(set) var total: Int
    private var lastDraw: Int64 = 0
    private var drawn = false
    static let redrawInterval = Duration.milliseconds(100)

    public init(_ label: String, total: Int) {
        self.label = label
        self.total = total
    }

    /// Switches the bar to another phase of the same work.
    public mutating func update(label: String, done: Int, total: Int) {
        if label != self.label || total != self.total {
            self.label = label
            self.total = total
            lastDraw = 0
        }
        update(done: done, items: done)
    }

    public mutating func update(done: Int, items: Int) {
        guard Terminal.isInteractive else { return }
        let now = monotonicMillis()
        guard .milliseconds(now - lastDraw) >= Self.redrawInterval else { return }
        lastDraw = now
        drawn = true
        let width = 30
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        Terminal.write("\r\(label) [\(bar)] \(Int(fraction * 100))%  \(items) contacts\u{1B}[K")
    }

    /// Clears the bar so that the summary starts on a clean line.
    public mutating func finish() {
        guard drawn else { return }
        Terminal.write("\r\u{1B}[K")
        drawn = false
    }
}

extension Duration {
    /// The span in seconds with `decimals` digits after the point (from whole milliseconds), as the commands say
    /// how long they took.
    public func formattedSeconds(decimals: Int) -> String {
        (Double(wholeMilliseconds) / 1000).formatted(decimals: decimals)
    }
}

extension Double {
    /// The number with `decimals` digits after the point, without Foundation's formatters.
    public func formatted(decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (self * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(abs(scaled).truncatingRemainder(dividingBy: scale))
        guard decimals > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }
}

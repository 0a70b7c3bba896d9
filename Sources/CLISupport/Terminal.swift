import ContactStore
import Glibc

/// Output for people: messages on stderr, data on stdout, and a progress bar only when stderr is a terminal.
public enum Terminal {
    public static let isInteractive = isatty(STDERR_FILENO) == 1

    public static func error(_ message: String) {
        note("contactbox: " + message)
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
        guard now - lastDraw >= 100 else { return }
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

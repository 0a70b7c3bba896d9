import Glibc
import Logging
import SafeText

/// Log lines on stderr that journald files under the right priority: sd-daemon(3)'s `<N>` prefixes, used when
/// systemd connected stderr to the journal (`$JOURNAL_STREAM`) or stderr is not a terminal. Metadata follows the
/// message as `key=value`. One write(2) per line, so lines from two threads never interleave.
///
/// Messages and metadata carry text from outside (card names, hrefs, server messages, errors): their control
/// characters are written escaped (`printable`), so a line break cannot forge a second journal entry with a
/// priority of its choosing, and an escape sequence cannot reprogram the terminal of whoever reads the log.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let prefixed: Bool

    public init(level: Logger.Level, prefixed: Bool = JournalLogHandler.stderrIsJournal()) {
        logLevel = level
        self.prefixed = prefixed
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var bytes = Array(line(event).utf8)
        _ = write(STDERR_FILENO, &bytes, bytes.count)
    }

    /// The line written for `event`, its line break included: exactly one, at the end.
    func line(_ event: LogEvent) -> String {
        // On a terminal the line first clears what is there: the demo's front panel, redrawn after it.
        let prefix = prefixed ? "<\(Self.priority(event.level))>" : "\r\u{1B}[2K\(event.level): "
        return prefix + Self.text(event, metadata: metadata) + "\n"
    }

    /// The message and then every metadata item as `key=value` (the handler's and the event's, sorted by key), all
    /// escaped: the words of a line, in the journal and on the status page (`StatusBoardLogHandler`).
    static func text(_ event: LogEvent, metadata: Logger.Metadata) -> String {
        var text = printable("\(event.message)")
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            text += " " + printable(key) + "=" + printable("\(value)")
        }
        return text
    }

    /// syslog(3) priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public static func stderrIsJournal() -> Bool {
        getenv("JOURNAL_STREAM") != nil || isatty(STDERR_FILENO) == 0
    }
}

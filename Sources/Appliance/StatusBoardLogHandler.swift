import Logging
import Remotes
import SafeText

/// Feeds the status page's event list from the log, so that one `logger.notice(...)` writes the journal and the
/// page alike: the journal's message, then its values under the last word of their keys, which people read
/// ("Remote synced (name nas, counts 150 up, 2 down, result ok)"), escaped the same way.
///
/// Which lines: the appliance's own (logged from the `Appliance` module, and by `RemoteFactory`, which opens its
/// remotes) at notice and above: what it did that a person may look for (started, synced a remote, reloaded, a button
/// press, a remote that moved) and what went wrong. The libraries' warnings (a redirect refused, a busy server, a
/// wrong status page password) stay in the journal: the page keeps only `StatusBoard.eventLimit` lines, and a
/// remote's result already says what its sync came to.
public struct StatusBoardLogHandler: LogHandler {
    /// The lowest level the page lists.
    public static let pageLevel = Logger.Level.notice
    /// The sources whose lines the page lists.
    static let sources: Set = ["Appliance", RemoteFactory.logSource]

    public var metadata: Logger.Metadata = [:]
    private let board: StatusBoard

    public init(board: StatusBoard) {
        self.board = board
    }

    /// Fixed at `pageLevel`: the page's list does not follow `CONTACTBOX_LOG_LEVEL`, which is for the journal.
    public var logLevel: Logger.Level {
        get { Self.pageLevel }
        set {}
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard event.level >= Self.pageLevel, Self.sources.contains(event.source) else { return }
        board.record(event.level.rawValue, Self.text(event, metadata: metadata))
    }

    static func text(_ event: LogEvent, metadata: Logger.Metadata) -> String {
        let values = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }.map { key, value in
            "\(key.split(separator: ".").last ?? Substring(key)) \(value)"
        }
        let message = "\(event.message)"
        return printable(values.isEmpty ? message : message + " (" + values.joined(separator: ", ") + ")")
    }
}

extension Logger {
    /// This logger, and the appliance's notable lines on `board`'s event list as well.
    func feeding(_ board: StatusBoard) -> Logger {
        let journal = handler
        return Logger(label: label) { _ in MultiplexLogHandler([journal, StatusBoardLogHandler(board: board)]) }
    }
}

import Glibc
import Logging

public enum LogSetup {
    /// Log lines on stderr at the level in CONTACTBOX_LOG_LEVEL (default: warning, so that a terminal shows the
    /// summary, not the traffic; `debug` shows every request, never a password or a card).
    public static func makeLogger() -> Logger {
        var logger = Logger(label: "contactbox") { StreamLogHandler.standardError(label: $0) }
        let level = getenv("CONTACTBOX_LOG_LEVEL").map { String(cString: $0) } ?? "warning"
        logger.logLevel = Logger.Level(rawValue: level) ?? .warning
        return logger
    }
}

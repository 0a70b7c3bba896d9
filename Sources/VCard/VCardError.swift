/// Why a card could not be read, and where.
///
/// The line is the physical line of the input where the problem was seen (1-based); the caller adds the file name.
/// Messages quote at most a short excerpt of the input, never a whole card.
public struct VCardError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missingBegin = "missing-begin"
        case unterminatedCard = "unterminated-card"
        case badEscape = "bad-escape"
        case invalidUTF8 = "invalid-utf8"
        case lineTooLong = "line-too-long"
        case cardTooLarge = "card-too-large"
        case missingName = "missing-name"
        case malformedLine = "malformed-line"
        case unsupportedCharset = "unsupported-charset"
        case unreadableInput = "unreadable-input"
    }

    public var code: Code
    public var line: Int
    public var message: String

    public init(_ code: Code, line: Int, _ message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// A short, printable excerpt of input for error messages.
func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
    let head = bytes.prefix(limit).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "?" }
    return String(head) + (bytes.count > limit ? "…" : "")
}

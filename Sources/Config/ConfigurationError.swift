/// A problem with the configuration, said so that a person can fix it:
/// `/etc/contactbox/contactbox.toml:12: remote "icloud": conflict must be one of newest, local, remote
/// (found "oldest")`.
///
/// Never carries a password: messages name keys and files, and quote only values that are not secret.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The configuration file, or the password file or credential the problem is about.
    public var file: String
    /// 1-based; nil when the problem is about the whole file (it cannot be read, say).
    public var line: Int?
    /// The key as written in the file (`conflict`, `password_file`), when one is to blame.
    public var key: String?
    public var message: String
    /// What a caller may do about it: fix a value, or, when saving the settings file, load it again.
    public var reason: Reason

    public enum Reason: Sendable, Equatable {
        /// A value, a file's shape or its permissions: a person fixes it.
        case invalid
        /// ``SettingsFile/save(_:expecting:)``: the file changed since it was loaded (another browser saved);
        /// load it again and redo the change (HTTP's 412).
        case changedMeanwhile
        /// A write failed (a full disk, say); the old file is as it was.
        case cannotWrite
    }

    public init(file: String, line: Int? = nil, key: String? = nil, message: String, reason: Reason = .invalid) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.reason = reason
    }

    /// The file is shown short (``Configuration/shown(_:)``): a password file's path is a value of the file, and a
    /// megabyte pasted there must not fill the terminal or the status page.
    public var description: String {
        if let line { return "\(Configuration.shown(file)):\(line): \(message)" }
        return "\(Configuration.shown(file)): \(message)"
    }
}

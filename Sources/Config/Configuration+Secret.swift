import Glibc
import SystemSupport

/// Where a password is kept: never in the configuration file itself, which anyone on the box may read.
///
/// The description names the place, never the secret.
public enum SecretSource: Sendable, Equatable, CustomStringConvertible {
    /// A file readable only by its owner (`password_file = "/etc/contactbox/icloud.password"`).
    case file(String)
    /// A systemd credential (`password_credential = "icloud"`): the unit's `LoadCredential=icloud:/path` puts
    /// it in `$CREDENTIALS_DIRECTORY`, readable only by the service.
    case credential(String)

    /// A password file that does not exist (yet): not a wrong value, but what the box still lacks
    /// (``Configuration/boxProblems(path:boardsDirectory:)``).
    public var isMissingFile: Bool {
        guard case .file(let file) = self else { return false }
        return access(file, F_OK) != 0 && errno == ENOENT
    }

    /// Password files and credentials hold one line; anything bigger is a mistake (a wrong path, say).
    static let sizeLimit = 4096

    public var description: String {
        switch self {
        case .file(let path): "password file \(Configuration.shown(path))"
        case .credential(let name): "credential \"\(name)\""
        }
    }

    /// The secret, without one trailing newline (as `echo` and editors leave it).
    ///
    /// Refuses a password file that its group or others may read or write, and says how to fix it. The error
    /// never contains the secret.
    public func read() throws(ConfigurationError) -> String {
        let path: String
        var check: (stat) -> String? = { _ in nil }
        switch self {
        case .file(let file):
            path = file
            check = { info in
                // chmod 600 leaves read and write to the owner only; systemd credentials are 0400 already.
                guard info.st_mode & 0o077 != 0 else { return nil }
                let mode = String(info.st_mode & 0o777, radix: 8)
                guard info.st_uid == geteuid() else {
                    // Not ours (a system file named by mistake, say): no advice to change its mode.
                    return "other users may read this file (mode \(mode)), and it belongs to another user; "
                        + "use a password file of ContactBox's own, readable by its owner alone"
                }
                // Ours, but shared on purpose with another group (root's /etc/shadow with group shadow), or linked
                // from elsewhere: changing its mode would break whoever else reads it. No advice to chmod it either.
                guard info.st_gid == getegid(), info.st_nlink == 1 else {
                    return "other users may read this file (mode \(mode)), and it is shared with another group or "
                        + "linked from elsewhere, so it is not a password file of ContactBox's own; use one that is, "
                        + "readable by its owner alone"
                }
                return "other users may read this password file (mode \(mode)); run: chmod 600 \(file)"
            }
        case .credential(let name):
            guard let directory = getenv("CREDENTIALS_DIRECTORY"), directory.pointee != 0 else {
                throw ConfigurationError(
                    file: description, key: "password_credential",
                    message: "CREDENTIALS_DIRECTORY is not set: password_credential works only under systemd "
                        + "with LoadCredential=\(name):/path/to/password in the unit; use password_file otherwise")
            }
            path = String(cString: directory) + "/" + name
        }
        var bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: Self.sizeLimit, check: check)
        } catch {
            throw ConfigurationError(file: path, key: key, message: error.message)
        }
        defer {
            // Do not leave the secret in freed memory longer than needed.
            for index in bytes.indices { bytes[index] = 0 }
        }
        var end = bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: "\n") {
            end -= 1
            if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        }
        guard end > 0 else { throw ConfigurationError(file: path, key: key, message: "the password is empty") }
        // A C string ends at a NUL: libcurl would send only what comes before it, and a login would fail (or pass)
        // with a password nobody wrote.
        guard !bytes[..<end].contains(0) else {
            throw ConfigurationError(
                file: path, key: key,
                message: "the file holds a NUL byte; a password file holds the password alone, as text on one line")
        }
        guard !bytes[..<end].contains(UInt8(ascii: "\n")), !bytes[..<end].contains(UInt8(ascii: "\r")) else {
            throw ConfigurationError(
                file: path, key: key,
                message: "the file holds more than one line; a password file holds the password alone, on one line")
        }
        guard let secret = String(validating: bytes[..<end], as: UTF8.self) else {
            throw ConfigurationError(file: path, key: key, message: "the password is not UTF-8 text")
        }
        return secret
    }

    private var key: String {
        switch self {
        case .file: "password_file"
        case .credential: "password_credential"
        }
    }
}

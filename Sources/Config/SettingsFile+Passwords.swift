import Glibc
import SystemSupport

/// The passwords the page and the command line set: a file each in the secrets folder, written as the settings
/// file is (a temporary file, flushed, renamed).
extension SettingsFile {
    /// `secrets/NAME.password`.
    public func passwordPath(forRemote name: String) -> String {
        secretsDirectory + "/" + name + ".password"
    }

    /// `secrets/NAME.client-secret`: an OAuth client's secret, for a remote that signs in (`OAuthSettings`).
    public func clientSecretPath(forRemote name: String) -> String {
        secretsDirectory + "/" + name + ".client-secret"
    }

    /// Writes an OAuth client's secret for a remote, as ``savePassword(_:forRemote:)`` writes a password.
    @discardableResult
    public func saveClientSecret(_ secret: [UInt8], forRemote name: String) throws(ConfigurationError) -> SecretSource {
        try saveSecret(secret, forRemote: name, to: clientSecretPath(forRemote: name), what: "the client secret")
    }

    private func saveSecret(
        _ bytes: [UInt8], forRemote name: String, to file: String, what: String
    ) throws(ConfigurationError) -> SecretSource {
        if let problem = RemoteSettings.nameProblem(name) {
            throw ConfigurationError(file: secretsDirectory, message: "a remote's name: " + problem)
        }
        try writePassword(bytes, to: file, what: "remote \"\(name)\": " + what)
        return .file(file)
    }

    /// The status page's password file. The `@` keeps it apart from every remote's: no remote name holds one.
    public static func statusPasswordPath(secretsDirectory: String) -> String {
        secretsDirectory + "/@status.password"
    }

    /// Writes a remote's password (UTF-8 bytes, as a form sends them) to ``passwordPath(forRemote:)``, mode 0600
    /// in the 0700 secrets folder, and returns the source to name in its `[[remote]]` block. The bytes are
    /// checked first (``passwordProblem(_:)``); no error names or quotes them.
    @discardableResult
    public func savePassword(_ password: [UInt8], forRemote name: String) throws(ConfigurationError) -> SecretSource {
        try saveSecret(password, forRemote: name, to: passwordPath(forRemote: name), what: "the password")
    }

    /// Writes the status page's password (``statusPasswordPath(secretsDirectory:)``), as ``savePassword(_:forRemote:)``.
    @discardableResult
    public func saveStatusPassword(_ password: [UInt8]) throws(ConfigurationError) -> SecretSource {
        let file = Self.statusPasswordPath(secretsDirectory: secretsDirectory)
        try writePassword(password, to: file, what: "the status page's password")
        return .file(file)
    }

    /// Why `password` cannot be a password file's line, or nil when it can. Never quotes it.
    public static func passwordProblem(_ password: [UInt8]) -> String? {
        guard !password.isEmpty else { return "the password is empty" }
        // One line, and the reader takes off one trailing newline: what a file holds beyond that is no password.
        guard password.count < SecretSource.sizeLimit else {
            return "the password is longer than \(Configuration.grouped(SecretSource.sizeLimit - 1)) bytes"
        }
        guard let text = String(validating: password, as: UTF8.self) else {
            return "the password is not UTF-8 text"
        }
        // A line break would end the file's one line, and a NUL the C string libcurl sends: C0, DEL and C1.
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return "the password holds a control character (a line break, a tab); type it again without one"
        }
        return nil
    }

    private func writePassword(_ password: [UInt8], to file: String, what: String) throws(ConfigurationError) {
        if let problem = Self.passwordProblem(password) {
            throw ConfigurationError(file: file, message: what + ": " + problem)
        }
        let folder = try SettingsFolder(path: secretsDirectory, creatingWithMode: 0o700)
        try folder.lock()
        try folder.replace(SmallFile.name(of: file), with: password, mode: 0o600, what: what, write: write)
    }
}

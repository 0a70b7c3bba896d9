import Glibc
import SystemSupport

/// The settings file as the status page and the command line read and write it: ``load()`` gives the settings
/// and their ``Version``, ``save(_:expecting:)`` writes new ones only if the file is still that version.
///
/// Every write goes to a temporary file in the same folder, is flushed to the disk (`fsync`), renamed over the old
/// file and the folder flushed in turn: a power cut or a full disk leaves the old file or the new one, never half
/// of one. Writers on the box (page threads, a command) take turns on a lock of the folder (`flock`), so that a
/// version compared is still the file's when it is replaced.
public struct SettingsFile: Sendable {
    public let path: String
    /// The passwords' folder (mode 0700), a file per remote (mode 0600).
    public let secretsDirectory: String
    /// Writes bytes to a file descriptor as `write(2)` does: a seam for the tests, which make it fail as a full
    /// disk would.
    var write: @Sendable (Int32, UnsafeRawBufferPointer) -> Int = { fd, buffer in
        Glibc.write(fd, buffer.baseAddress, buffer.count)
    }

    public init(path: String, secretsDirectory: String) {
        self.path = path
        self.secretsDirectory = secretsDirectory
    }

    /// The settings file of the store the configuration names (``Configuration/settingsPath``).
    public init(configuration: Configuration) {
        self.init(path: configuration.settingsPath, secretsDirectory: configuration.secretsDirectory)
    }

    /// Which bytes the file held when read: like an HTTP ETag, the page sends it back with a save, which is refused
    /// if the file holds other bytes by then.
    ///
    /// A 64-bit FNV-1a hash of the bytes: it only has to tell a file that another save changed from the one a
    /// browser loaded, by accident, never against someone forging a collision (whoever may save may just load the
    /// version); a cryptographic hash would need libcrypto in this module, which its shim's one user wraps.
    public struct Version: Sendable, Hashable, CustomStringConvertible {
        /// nil: there is no file.
        let hash: UInt64?

        /// No settings file yet.
        public static let absent = Version(hash: nil)

        init(hash: UInt64?) {
            self.hash = hash
        }

        init(bytes: [UInt8]) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
            self.hash = hash
        }

        /// 16 hexadecimal digits, or `none`: what the page puts in an ETag and reads back from If-Match.
        public var description: String {
            guard let hash else { return "none" }
            let digits = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }

        /// A version as ``description`` writes it; nil for anything else.
        public init?(_ text: String) {
            if text == "none" {
                self.init(hash: nil)
                return
            }
            guard text.utf8.count == 16, let hash = UInt64(text, radix: 16) else { return nil }
            self.init(hash: hash)
        }
    }

    /// The settings and their version; an empty settings value and ``Version/absent`` when there is no file yet.
    /// Throws the file's first problem (the page shows it; ``version()`` still allows saving over it).
    public func load() throws(ConfigurationError) -> (settings: HouseholdConfiguration, version: Version) {
        guard let bytes = try currentBytes() else { return (HouseholdConfiguration(), .absent) }
        let result = HouseholdConfiguration.validate(bytes: bytes, path: path, secretsDirectory: secretsDirectory)
        guard let household = result.household else {
            throw result.errors.first ?? ConfigurationError(file: path, message: "cannot be read")
        }
        return (household, Version(bytes: bytes))
    }

    /// The file's version whatever it holds, for saving over a file that ``load()`` refuses.
    public func version() throws(ConfigurationError) -> Version {
        guard let bytes = try currentBytes() else { return .absent }
        return Version(bytes: bytes)
    }

    /// Writes `settings` if the file is still at `expected`, and returns the new version.
    ///
    /// The text written is read back with the configuration's reader first, and refused with its first problem if
    /// the box would refuse it. The password file of each remote that is no longer there is removed (of the
    /// page's password too, when it is gone); write a new remote's password (``savePassword(_:forRemote:)``)
    /// before saving the remote, so that the box never reads a remote whose password is not there yet.
    @discardableResult
    public func save(
        _ settings: HouseholdConfiguration, expecting expected: Version
    ) throws(ConfigurationError) -> Version {
        let text = settings.settingsText()
        let bytes = Array(text.utf8)
        let check = HouseholdConfiguration.validate(bytes: bytes, path: path, secretsDirectory: secretsDirectory)
        if let first = check.errors.first { throw first }
        let folder = try SettingsFolder(path: SmallFile.folder(of: path), creatingWithMode: nil)
        try folder.lock()
        let current = try currentBytes()
        let found = current.map { Version(bytes: $0) } ?? .absent
        guard found == expected else { throw ConfigurationError.changedMeanwhile(path) }
        try folder.replace(SmallFile.name(of: path), with: bytes, mode: 0o600, what: "the settings", write: write)
        // What the old file named and the new one does not: its password files, which nothing reads any more.
        // After the save, so that a failure leaves a file that names no missing password.
        let old = current.flatMap {
            HouseholdConfiguration.validate(bytes: $0, path: path, secretsDirectory: secretsDirectory).household
        }
        if let old { removePasswords(of: old, keptIn: settings) }
        return Version(bytes: bytes)
    }

    private func removePasswords(of old: HouseholdConfiguration, keptIn new: HouseholdConfiguration) {
        var kept = Set(new.remotes.flatMap(\.secretFiles))
        if case .file(let file)? = new.statusPassword { kept.insert(file) }
        var gone = old.remotes.flatMap(\.secretFiles)
        if case .file(let file)? = old.statusPassword { gone.append(file) }
        for file in gone where !kept.contains(file) && ConfigurationReader.isDirectlyInside(secretsDirectory, file) {
            // Best effort: a password file left behind is harmless, and the settings are saved already.
            _ = unlink(file)
        }
    }

    /// The file's bytes; nil when there is no file.
    func currentBytes() throws(ConfigurationError) -> [UInt8]? {
        guard access(path, F_OK) == 0 || errno != ENOENT else { return nil }
        do {
            return try SmallFile.read(path, limit: Configuration.sizeLimit)
        } catch {
            throw ConfigurationError(file: path, message: error.message)
        }
    }

}

extension ConfigurationError {
    /// A save for a version that is not the file's: ``SettingsFile/save(_:expecting:)`` throws it, and whoever
    /// compares the version earlier (before writing a password file) throws the same.
    public static func changedMeanwhile(_ path: String) -> ConfigurationError {
        ConfigurationError(
            file: path,
            message: "the settings were changed meanwhile (from another browser or the command line); load them "
                + "again and redo your change",
            reason: .changedMeanwhile)
    }
}

extension RemoteSettings {
    /// The password file of a CardDAV remote that has one.
    public var passwordFile: String? {
        guard case .carddav(let card) = kind, case .file(let file) = card.password else { return nil }
        return file
    }

    /// Every secret's file of the remote: its password (or refresh token), and an OAuth client's secret.
    var secretFiles: [String] {
        guard case .carddav(let card) = kind else { return [] }
        var files = passwordFile.map { [$0] } ?? []
        if case .file(let file)? = card.oauth?.clientSecret { files.append(file) }
        return files
    }
}

import SystemSupport

/// The one check that `check-config`, the daemon's start and its reload on SIGHUP run
/// (``Configuration/checked(path:boardsDirectory:readingSecrets:)``): the administrator's file, then the settings
/// file merged into it.
///
/// The administrator's problems keep the box from starting (``configuration`` is nil); the settings file's never
/// do: they are listed apart (``settingsProblems``) and the box runs without what they spoil.
public struct ConfigurationCheck: Sendable {
    /// The administrator's file.
    public var path: String
    /// The settings file; nil when the administrator's file could not be read far enough to name it.
    public var settingsPath: String?
    /// Both files merged; nil exactly when ``errors`` is not empty.
    public var configuration: Configuration?
    /// The administrator's file's problems (and its passwords', and with a boards folder what the box lacks).
    public var errors: [ConfigurationError]
    /// The settings file's problems, each with its file and line: shown on the page and by `check-config`, never
    /// a reason not to start.
    public var settingsProblems: [ConfigurationError]
    /// What the settings file says as read, before merging; nil when it does not exist or could not be read.
    public var household: HouseholdConfiguration?
    var origins: [SettingKey: SettingOrigin]

    /// Where `key`'s value comes from: the administrator's file (fixed), the settings file, or the default. A
    /// remote that neither file names comes from nowhere: `.builtIn`.
    public func origin(of key: SettingKey) -> SettingOrigin {
        origins[key] ?? SettingOrigin(source: .builtIn)
    }
}

extension Configuration {
    /// The one check of both files (see ``ConfigurationCheck``).
    ///
    /// The administrator's file is checked as ``check(path:boardsDirectory:)`` always did: every value, every
    /// password, and with `boardsDirectory` (`check-config`) what the box may lack. The settings file, next to the
    /// store, is read by the same reader; where both set a value the administrator's is used. Any problem of its
    /// own (TOML, a value, a file that cannot be read or is no regular file) leaves the settings file out whole; a
    /// remote whose name /etc uses already, past the limit of ``remoteLimit`` in all, or whose password file is
    /// refused is left out alone. `readingSecrets: false` (the commands that sync) skips reading password files,
    /// which a sync reports per remote.
    public static func checked(
        path: String, boardsDirectory: String? = nil, readingSecrets: Bool = true
    ) -> ConfigurationCheck {
        var check = ConfigurationCheck(
            path: path, settingsPath: nil, configuration: nil, errors: [], settingsProblems: [], household: nil,
            origins: [:])
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: sizeLimit)
        } catch {
            check.errors = [ConfigurationError(file: path, message: error.message)]
            return check
        }
        let main = read(bytes: bytes, path: path, role: .administrator)
        guard var configuration = main.configuration else {
            check.errors = main.errors
            return check
        }
        var errors = readingSecrets ? configuration.secretProblems(path: path) : []
        if let boardsDirectory { errors += configuration.boxProblems(path: path, boardsDirectory: boardsDirectory) }
        check.settingsPath = configuration.settingsPath
        for (key, line) in main.lines {
            check.origins[key] = SettingOrigin(source: .administrator, file: path, line: line)
        }
        let settings = SettingsMerge(
            path: configuration.settingsPath, secretsDirectory: configuration.secretsDirectory,
            readingSecrets: readingSecrets, boardsDirectory: boardsDirectory)
        settings.merge(into: &configuration, check: &check)
        guard errors.isEmpty else {
            check.errors = errors
            return check
        }
        check.configuration = configuration
        return check
    }
}

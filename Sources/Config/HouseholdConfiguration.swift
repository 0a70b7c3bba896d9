import Glibc
import SystemSupport

/// What the settings file says: what the household sets from the status page and the command line, kept in the
/// state directory (``Configuration/settingsPath``) rather than in /etc, which stays the administrator's.
///
/// It holds a subset of the configuration file's TOML, read by the same reader with the same checks:
///
/// ```toml
/// [box]
/// name = "contactbox"
///
/// [sync]
/// interval = "15m"
///
/// [status]
/// password_file = "/var/lib/contactbox/secrets/status.password"
///
/// [[remote]]
/// name = "icloud"
/// kind = "carddav"
/// url = "https://contacts.icloud.com/"
/// username = "someone@icloud.com"
/// password_file = "/var/lib/contactbox/secrets/icloud.password"
/// paused = true
/// ```
///
/// Every optional here is nil when the file does not set it; ``SettingsFile`` reads and writes it.
public struct HouseholdConfiguration: Sendable, Equatable {
    public var remotes: [RemoteSettings]
    /// `[sync] interval`.
    public var syncInterval: Duration?
    /// `[status] password_file`, a file in the secrets folder.
    public var statusPassword: SecretSource?
    /// `[box] name`, a DNS label (``BoxSettings/nameProblem(_:)``).
    public var boxName: String?

    public init(
        remotes: [RemoteSettings] = [], syncInterval: Duration? = nil, statusPassword: SecretSource? = nil,
        boxName: String? = nil
    ) {
        self.remotes = remotes
        self.syncInterval = syncInterval
        self.statusPassword = statusPassword
        self.boxName = boxName
    }

    /// The settings file's text read with the configuration's parser and reader in the settings role: every
    /// problem in the order of its lines, and nothing else when there is one. `lines` says where each setting
    /// is written.
    static func validate(
        bytes: [UInt8], path: String, secretsDirectory: String
    ) -> (household: HouseholdConfiguration?, errors: [ConfigurationError], lines: [SettingKey: Int]) {
        let result = Configuration.read(
            bytes: bytes, path: path, role: .settings(secretsDirectory: secretsDirectory))
        guard let configuration = result.configuration else { return (nil, result.errors, [:]) }
        // The reader fills in defaults; what the file does not set stays nil, so that it is not taken for the
        // household's choice when merged.
        let household = HouseholdConfiguration(
            remotes: configuration.remotes,
            syncInterval: result.root["sync"]?.table?["interval"] != nil ? configuration.sync.interval : nil,
            statusPassword: configuration.status.password, boxName: configuration.box.name)
        return (household, [], result.lines)
    }

    /// Validates settings text (`path` names it in errors), collecting every problem.
    public static func validate(
        text: String, path: String, secretsDirectory: String
    ) -> (household: HouseholdConfiguration?, errors: [ConfigurationError]) {
        let result = validate(bytes: Array(text.utf8), path: path, secretsDirectory: secretsDirectory)
        return (result.household, result.errors)
    }
}

/// A setting the status page may change, to ask where its value comes from (``ConfigurationCheck/origin(of:)``).
public enum SettingKey: Hashable, Sendable {
    case syncInterval
    case statusPassword
    case boxName
    /// A `[[remote]]` block, by its name.
    case remote(String)
}

/// Where a setting's value comes from, for the page and `check-config`.
public struct SettingOrigin: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// Neither file sets it: the built-in default.
        case builtIn
        /// The administrator's file (/etc): fixed, the page shows it but cannot change it.
        case administrator
        /// The settings file, which the page and the command line write.
        case settings
    }

    public var source: Source
    /// The file that sets it; nil for a default.
    public var file: String?
    /// 1-based, where the file sets it.
    public var line: Int?

    public init(source: Source, file: String? = nil, line: Int? = nil) {
        self.source = source
        self.file = file
        self.line = line
    }

    /// Set by the administrator: the page must not offer to change it ("fixed by the administrator").
    public var isFixed: Bool { source == .administrator }

    /// `/etc/contactbox/contactbox.toml:12, fixed by the administrator`, `settings.toml:3`, `default`.
    public var description: String {
        guard let file else { return "default" }
        let place = Configuration.shown(file) + (line.map { ":\($0)" } ?? "")
        return isFixed ? place + ", fixed by the administrator" : place
    }
}

import SystemSupport

extension Configuration {
    /// The settings file, in the state directory: the store's folder (`/var/lib/contactbox/settings.toml`).
    ///
    /// Derived from `store` rather than set by a key of its own: the unit lets the service write only there (its
    /// `StateDirectory=`), a store moved to another disk takes its settings along, and a test or the demo that
    /// names a store of its own gets settings of its own.
    public var settingsPath: String { stateDirectory + "/settings.toml" }

    /// The folder of the passwords the page sets (mode 0700), one file per remote (mode 0600).
    public var secretsDirectory: String { stateDirectory + "/secrets" }

    /// The state folder of a store at `path`: its folder (`/var/lib/contactbox`), where the settings, the secrets
    /// and the paired browsers are kept.
    public static func stateFolder(ofStore path: String) -> String { SmallFile.folder(of: path) }

    /// The folder of the store, without its trailing slash (empty for a store in `/`).
    var stateDirectory: String {
        guard let slash = storePath.lastIndex(of: "/") else { return "." }
        return String(storePath[..<slash])
    }

    /// The remotes a pass syncs: all but the paused ones, which are kept (with their contacts and state) and shown.
    public var syncedRemotes: [RemoteSettings] { remotes.filter { !$0.paused } }
}

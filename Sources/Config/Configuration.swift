import Glibc

/// What the appliance is told to do: where the store lives, how often to sync, and with which address books.
///
/// Read from `/etc/contactbox/contactbox.toml` (see `Deploy/contactbox.example.toml`) with ``load(path:)``.
///
/// The names say what each is: a `...Configuration` is what one file says (this, and a board file's
/// ``BoardConfiguration``), a `...Settings` one part of it, a table or a `[[remote]]` block (``SyncSettings``,
/// ``RemoteSettings``, ``PanelSettings``, ``StatusSettings``, ``HistorySettings``).
public struct Configuration: Sendable, Equatable {
    public static let installedPath = "/etc/contactbox/contactbox.toml"
    public static let defaultStorePath = "/var/lib/contactbox/contacts.sqlite"
    /// The most `[[remote]]` blocks a file may hold: a household's address books are a handful, and each remote
    /// costs the daemon memory and a sync of its own every interval.
    public static let remoteLimit = 32

    public var storePath: String
    public var sync: SyncSettings
    public var remotes: [RemoteSettings]
    /// Which board the front panel is wired on (`[panel]`); without it, the panel is simulated.
    public var panel: PanelSettings
    /// Where the status page listens, and its password (`[status]`).
    public var status: StatusSettings
    /// How long the store keeps replaced and deleted versions (`[history]`).
    public var history: HistorySettings
    /// The box's network name (`[box]`).
    public var box: BoxSettings

    public init(
        storePath: String = Configuration.defaultStorePath, sync: SyncSettings = SyncSettings(),
        remotes: [RemoteSettings], panel: PanelSettings = PanelSettings(),
        status: StatusSettings = StatusSettings(), history: HistorySettings = HistorySettings(),
        box: BoxSettings = BoxSettings()
    ) {
        self.box = box
        self.history = history
        self.storePath = storePath
        self.sync = sync
        self.remotes = remotes
        self.panel = panel
        self.status = status
    }

    /// The file to read: `--config PATH` when given, else `$CONTACTBOX_CONFIG`, else ``installedPath``.
    public static func path(explicit: String?) -> String {
        if let explicit { return explicit }
        if let env = getenv("CONTACTBOX_CONFIG"), env.pointee != 0 { return String(cString: env) }
        return installedPath
    }
}

/// When to sync, and how much a run may delete before it waits for a person.
public struct SyncSettings: Sendable, Equatable {
    /// The time between two ordinary syncs (`interval = "15m"`).
    public var interval: Duration
    /// The time between two full comparisons of every item, which catch what change tracking missed
    /// (`full_check = "24h"`).
    public var fullCheck: Duration
    /// A run that would delete more than this share of a remote's contacts holds the deletions for confirmation.
    /// In (0, 1].
    public var maxDeleteShare: Double

    public init(
        interval: Duration = .seconds(15 * 60), fullCheck: Duration = .seconds(24 * 3600), maxDeleteShare: Double = 0.3
    ) {
        self.interval = interval
        self.fullCheck = fullCheck
        self.maxDeleteShare = maxDeleteShare
    }
}

/// What the history keeps: the `[history]` section.
///
/// ```toml
/// [history]
/// max_age = "90d"      # versions older than this are pruned
/// max_versions = 50    # and beyond this many per contact, the oldest (0: no limit by count)
/// ```
public struct HistorySettings: Sendable, Equatable {
    public var maxAge: Duration
    /// nil: no limit by count.
    public var maxVersions: Int?

    public init(maxAge: Duration = .seconds(90 * 86_400), maxVersions: Int? = 50) {
        self.maxAge = maxAge
        self.maxVersions = maxVersions
    }
}

/// Everything the status page, `/api/status` and `/metrics` show, taken at one moment: a view of the appliance's state
/// (Docs/contributing.md, rule 9) in plain values, so this module needs nothing of the others. Never holds contact
/// contents or secrets.
public struct StatusSnapshot: Sendable, Equatable {
    /// `starting`, `idle`, `syncing`, `offline`, `attention` or `stopping`.
    public var state: String
    /// One line for people: "Syncing icloud: receiving 300 of 1,000", "Idle", "icloud refused the password".
    public var summary: String
    /// With state `attention`: `login`, `unreachable`, `deletions_held` or `storage`.
    public var attention: String?
    /// What a person can do about it, with state `attention` ("Check the app password of icloud, then hold the
    /// button for 3 seconds").
    public var advice: String?
    /// The three LEDs as they are lit now, and the pattern each is showing.
    public var leds: [LED]
    /// Unix seconds of the end of the last sync pass, and of the next one planned.
    public var lastSync: Int64?
    public var nextSync: Int64?
    /// Unix seconds the daemon started.
    public var startedAt: Int64
    public var contacts: Int
    public var remotes: [Remote]
    /// Newest first, at most 20.
    public var events: [Event]
    public var version: String
    public var build: String
    public var counters: Counters

    public struct LED: Sendable, Equatable {
        /// `power`, `sync` or `error`.
        public var name: String
        public var lit: Bool
        /// For people: "steady", "off", "blinking 2 Hz", "double flash", "3 flashes".
        public var pattern: String

        public init(name: String, lit: Bool, pattern: String) {
            self.name = name
            self.lit = lit
            self.pattern = pattern
        }
    }

    public struct Remote: Sendable, Equatable {
        public var name: String
        /// `carddav` or `vdir`.
        public var kind: String
        /// `ok`, `failed`, `deletions_held`, `interrupted`, or `never` before its first sync.
        public var lastResult: String
        /// Unix seconds of the end of its last sync.
        public var lastSync: Int64?
        public var uploaded: Int
        public var downloaded: Int
        public var updated: Int
        public var deleted: Int
        public var conflicts: Int
        public var errors: Int
        /// Why the last sync failed or what it held back, for people (never a password).
        public var message: String?

        public init(
            name: String, kind: String, lastResult: String, lastSync: Int64? = nil, uploaded: Int = 0,
            downloaded: Int = 0, updated: Int = 0, deleted: Int = 0, conflicts: Int = 0, errors: Int = 0,
            message: String? = nil
        ) {
            self.name = name
            self.kind = kind
            self.lastResult = lastResult
            self.lastSync = lastSync
            self.uploaded = uploaded
            self.downloaded = downloaded
            self.updated = updated
            self.deleted = deleted
            self.conflicts = conflicts
            self.errors = errors
            self.message = message
        }
    }

    public struct Event: Sendable, Equatable {
        /// Unix seconds.
        public var time: Int64
        /// `info`, `warning` or `error`.
        public var level: String
        public var message: String

        public init(time: Int64, level: String, message: String) {
            self.time = time
            self.level = level
            self.message = message
        }
    }

    /// Totals since the daemon started, for `/metrics` (Prometheus `_total` counters).
    public struct Counters: Sendable, Equatable {
        /// Sync runs of one remote, by `ok`, `failed`, `deletions_held`, `interrupted`.
        public var syncRuns: [String: Int] = [:]
        public var uploaded = 0
        public var downloaded = 0
        public var updated = 0
        public var deleted = 0
        public var conflicts = 0
        public var itemErrors = 0
        public var buttonPresses = 0
        /// How long the last sync pass took.
        public var lastPass: Duration?

        public init() {}
    }

    public init(
        state: String, summary: String, attention: String? = nil, advice: String? = nil, leds: [LED],
        lastSync: Int64? = nil, nextSync: Int64? = nil, startedAt: Int64, contacts: Int, remotes: [Remote],
        events: [Event], version: String, build: String, counters: Counters = Counters()
    ) {
        self.state = state
        self.summary = summary
        self.attention = attention
        self.advice = advice
        self.leds = leds
        self.lastSync = lastSync
        self.nextSync = nextSync
        self.startedAt = startedAt
        self.contacts = contacts
        self.remotes = remotes
        self.events = events
        self.version = version
        self.build = build
        self.counters = counters
    }
}

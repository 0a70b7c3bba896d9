import SystemSupport

/// Everything the status page, `/api/status` and `/metrics` show, taken at one moment: a view of the appliance's state
/// (Docs/contributing.md, rule 9) in plain values, so this module needs nothing of the others (a sync run's counts
/// are `SyncCounts`, of SystemSupport, below them all). Never holds contact contents or secrets.
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
    /// The restore points: the latest runs that changed the store, newest first, at most ``runLimit``.
    public var runs: [Run]
    /// The undo asked for on the page, from its preview to its end; nil when none was asked for since the start.
    public var undo: Undo?
    /// The store's safety copies, newest first (none yet: an empty list).
    public var copies: [Copy]
    /// Set while SQLite's check finds the store damaged: the page then offers to recover it.
    public var damage: Damage?

    /// How many restore points the page lists.
    public static let runLimit = 10

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
        /// What its last sync did.
        public var counts: SyncCounts
        /// Why the last sync failed or what it held back, for people (never a password).
        public var message: String?

        public init(
            name: String, kind: String, lastResult: String, lastSync: Int64? = nil, counts: SyncCounts = SyncCounts(),
            message: String? = nil
        ) {
            self.name = name
            self.kind = kind
            self.lastResult = lastResult
            self.lastSync = lastSync
            self.counts = counts
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

    /// A run that changed the store (a sync with one remote, or an import, delete, edit, restore or undo on the
    /// box), with what it did on each side as the sync journal and the history record it: a restore point.
    public struct Run: Sendable, Equatable {
        public var id: Int64
        /// `sync`, `import`, `delete`, `edit`, `restore` or `undo`.
        public var kind: String
        /// The remote of a sync; nil for a local operation or a removed remote.
        public var remote: String?
        /// Unix seconds.
        public var startedAt: Int64
        public var finishedAt: Int64?
        /// `ok`, `failed`, `needs-confirmation`, `interrupted`; nil while it runs.
        public var outcome: String?
        /// The store's side: contacts the run created, updated and deleted in the store (what an undo takes back).
        public var created: Int
        public var updated: Int
        public var deleted: Int
        /// The remote's side of a sync, as the journal counts it (`/api/status` shows the first four); nil for a
        /// local operation.
        public var remoteCounts: SyncCounts?
        /// What a local operation was asked to do ("undo of run 12").
        public var note: String?

        public init(
            id: Int64, kind: String, remote: String? = nil, startedAt: Int64, finishedAt: Int64? = nil,
            outcome: String? = nil, created: Int = 0, updated: Int = 0, deleted: Int = 0,
            remoteCounts: SyncCounts? = nil, note: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.remote = remote
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.outcome = outcome
            self.created = created
            self.updated = updated
            self.deleted = deleted
            self.remoteCounts = remoteCounts
            self.note = note
        }
    }

    /// "Undo this sync" from the page: what the undo of `run` would change (the store's dry run), then whether it
    /// waits for the button, was confirmed, done, cancelled or expired.
    public struct Undo: Sendable, Equatable {
        public enum Phase: String, Sendable {
            /// The box is working out what the undo would change.
            case checking
            /// What it would change is known: the page asks the person to confirm.
            case previewed
            /// Confirmed on the page: the box waits for a long press until `deadline`.
            case armed
            /// Confirmed by the long press: the undo runs, then a sync carries it to the remotes.
            case confirmed
            case done
            case failed
            /// Cancelled on the page or by a short press.
            case cancelled
            /// No long press before the deadline.
            case expired
        }

        public var run: Int64
        public var phase: Phase
        /// Unix seconds until which a long press confirms (while armed).
        public var deadline: Int64?
        /// From the preview, then from the undo itself: contacts brought back, put back, deleted, and skipped
        /// because they changed after the run.
        public var revived: Int
        public var reverted: Int
        public var deleted: Int
        public var skipped: Int
        /// The undo's own run once done (itself a restore point).
        public var undoRun: Int64?
        /// Why it failed, for people.
        public var message: String?
        /// Some of the contacts it changes, at most ``contactLimit``. Names are shown only behind the page's
        /// password: the server leaves them out when there is none.
        public var contacts: [Contact]
        /// Set when what waits for the button is a restore of one contact from its page (`run` is then the history
        /// row it goes back before): the contact's name, or "a contact" where names are not shown.
        public var restore: String?
        /// Set when what waits for the button is the recover of the damaged store from a safety copy (`run` is
        /// then 0).
        public var recover: Recover?

        public static let contactLimit = 10

        public struct Contact: Sendable, Equatable {
            public var name: String
            /// `revived`, `reverted`, `deleted` or `skipped-changed-since`.
            public var action: String

            public init(name: String, action: String) {
                self.name = name
                self.action = action
            }
        }

        public init(
            run: Int64, phase: Phase, deadline: Int64? = nil, revived: Int = 0, reverted: Int = 0, deleted: Int = 0,
            skipped: Int = 0, undoRun: Int64? = nil, message: String? = nil, contacts: [Contact] = [],
            restore: String? = nil, recover: Recover? = nil
        ) {
            self.run = run
            self.phase = phase
            self.deadline = deadline
            self.revived = revived
            self.reverted = reverted
            self.deleted = deleted
            self.skipped = skipped
            self.undoRun = undoRun
            self.message = message
            self.contacts = contacts
            self.restore = restore
            self.recover = recover
        }

        /// The recover of a damaged store from a safety copy, asked for on the page and confirmed by the button: the
        /// copy, then what it did.
        public struct Recover: Sendable, Equatable {
            /// When the copy was made, Unix seconds.
            public var copyMadeAt: Int64
            /// Once done: the contacts in the store put back, and where the damaged store was kept.
            public var contacts: Int?
            public var keptAs: String?

            public init(copyMadeAt: Int64, contacts: Int? = nil, keptAs: String? = nil) {
                self.copyMadeAt = copyMadeAt
                self.contacts = contacts
                self.keptAs = keptAs
            }
        }
    }

    /// A damaged store, as the check found it: what SQLite said, and the copy a recover would put in place.
    public struct Damage: Sendable, Equatable {
        /// SQLite's first problem.
        public var problem: String
        /// The newest safety copy that passes the check; nil when there is none.
        public var copy: Copy?

        public init(problem: String, copy: Copy?) {
            self.problem = problem
            self.copy = copy
        }
    }

    /// A safety copy of the store (`contactbox recover` puts it back): when it was made, Unix seconds, and its size.
    public struct Copy: Sendable, Equatable {
        public var madeAt: Int64
        public var bytes: Int64

        public init(madeAt: Int64, bytes: Int64) {
            self.madeAt = madeAt
            self.bytes = bytes
        }
    }

    /// Totals since the daemon started, for `/metrics` (Prometheus `_total` counters).
    public struct Counters: Sendable, Equatable {
        /// Sync runs of one remote, by `ok`, `failed`, `deletions_held`, `interrupted`.
        public var syncRuns: [String: Int] = [:]
        /// What the sync runs did, added up.
        public var items = SyncCounts()
        public var buttonPresses = 0
        /// How long the last sync pass took.
        public var lastPass: Duration?

        public init() {}
    }

    public init(
        state: String, summary: String, attention: String? = nil, advice: String? = nil, leds: [LED],
        lastSync: Int64? = nil, nextSync: Int64? = nil, startedAt: Int64, contacts: Int, remotes: [Remote],
        events: [Event], version: String, build: String, counters: Counters = Counters(), runs: [Run] = [],
        undo: Undo? = nil, copies: [Copy] = [], damage: Damage? = nil
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
        self.runs = runs
        self.undo = undo
        self.copies = copies
        self.damage = damage
    }

    /// The snapshot without contact names, for a page without a password (anyone on the network can read it).
    public func withoutNames() -> StatusSnapshot {
        var copy = self
        copy.undo?.contacts = []
        if copy.undo?.restore != nil { copy.undo?.restore = "a contact" }
        return copy
    }
}

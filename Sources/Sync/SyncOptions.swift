import ContactStore
import SystemSupport

public struct SyncOptions: Sendable {
    public var policy: ConflictPolicy
    /// A run that would delete more than this share of the items synced with a remote holds its deletions.
    public var maxDeleteShare: Double
    /// Deletions a person confirmed (`sync --confirm-deletions`, a long button press).
    public var confirmDeletions: Bool
    /// Decide and count, but write nothing on either side.
    public var dryRun: Bool
    /// List the whole remote instead of asking for changes since the sync token: catches whatever change
    /// tracking missed (the daemon's daily full check).
    public var fullCheck = false
    /// Asked between chunks; true ends the run after the chunk it just committed, with outcome `.interrupted`
    /// (the daemon stopping). The next run resumes where this one stopped.
    public var shouldStop: (@Sendable () -> Bool)?
    /// The end of this remote's turn: past it, the run ends with `.tooSlow` between chunks, and a temporary failure
    /// (the request it cut short) reads as the turn's (`TurnDeadline.error`). The remote's HTTP client and retry
    /// policy keep the same deadline.
    public var deadline: TurnDeadline?
    /// Called before each chunk is carried out, once the last chunk's cards are free: where the caller gives their
    /// pages back (`RemoteFactory.sync`: `malloc_trim`), so that chunks do not pile up in a fragmented heap.
    public var beforeChunk: (@Sendable () -> Void)?

    /// This many deletions never need confirmation, whatever the share: deleting one of three contacts on a phone
    /// must simply sync.
    public static let deletionsAlwaysAllowed = 5

    public init(
        policy: ConflictPolicy = .newest, maxDeleteShare: Double = 0.3, confirmDeletions: Bool = false,
        dryRun: Bool = false
    ) {
        self.policy = policy
        self.maxDeleteShare = maxDeleteShare
        self.confirmDeletions = confirmDeletions
        self.dryRun = dryRun
    }
}

/// What one run did with one remote, for the CLI summary, the journal and the status page.
public struct SyncReport: Sendable {
    public var remote: String
    public var outcome: SyncOutcome
    public var counts = SyncCounts()
    /// Deletions not made because they need a person's confirmation.
    public var deletionsHeld = 0
    /// One line per item that failed, at most `errorLimit` of them (the count is in `counts.errors`).
    public var errors: [String] = []
    /// Cards the remote refused in this run (400, 403, 413, 415, 422), one line each with the server's reason. A
    /// refusal is about that card alone: it is no error of the sync, and it is reported once per version.
    public var refused: [String] = []
    /// Cards the remote changed as it stored them (the read-back after a write), even when sent again in another
    /// form: one line each, saying what it changed; reported once, when first seen. (A card the remote kept intact
    /// when sent again is a note.)
    public var damaged: [String] = []
    /// What the run did that a person should know of, though nothing failed (a duplicate UID kept apart).
    public var notes: [String] = []
    /// Contacts left unsent because the remote refused that same version before.
    public var stillRefused = 0
    /// Conflicts left for later because the box's clock is not set and they are decided by time (`newest`): the
    /// box's change dated by it, or a remote version without `REV`, dated by it as it arrives. Both versions stay;
    /// the pass after the clock is set decides them.
    public var waitingForClock = 0
    public var message: String?
    /// What stopped the run, when it did not finish (outcome `.failed`).
    public var failure: RemoteError?

    public static let errorLimit = 50

    public init(remote: String, outcome: SyncOutcome) {
        self.remote = remote
        self.outcome = outcome
    }

    /// A run that `error` stopped (or that could not start).
    public static func failed(_ remote: String, _ error: RemoteError) -> SyncReport {
        var report = SyncReport(remote: remote, outcome: .failed)
        report.fail(error)
        return report
    }

    mutating func fail(_ error: RemoteError) {
        outcome = .failed
        message = error.message
        failure = error
    }

    mutating func recordNote(_ message: String) {
        if notes.count < Self.errorLimit { notes.append(message) }
    }

    mutating func recordDamage(_ message: String) {
        if damaged.count < Self.errorLimit { damaged.append(message) }
    }

    mutating func recordRefusal(_ message: String) {
        if refused.count < Self.errorLimit { refused.append(message) }
    }

    mutating func recordError(_ message: String) {
        counts.errors += 1
        if errors.count < Self.errorLimit { errors.append(message) }
    }
}

/// Where a run is, for a progress bar.
public struct SyncProgress: Sendable {
    public var phase: String
    public var done: Int
    public var total: Int
}

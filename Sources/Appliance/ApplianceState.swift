import FrontPanel

/// What the appliance is doing, in one place (Docs/contributing.md, rule 9): the LEDs, the status page and systemd's
/// status line are all views of it.
public enum ApplianceState: Sendable, Equatable {
    case starting
    case idle
    /// Idle, with no address book to sync: set one up on the status page.
    case needsSetup
    case syncing(SyncActivity)
    /// The network is down; the next sync runs when it is back.
    case offline
    /// The box's clock is not set yet (no network time since it started): what needs the time waits for it, and
    /// the next pass runs as soon as it is set. Why, in words.
    case waitingForTime(String)
    case needsAttention(PanelState.Attention, reason: String)
    case stopping

    /// Where a sync pass is: which remote, what it is doing, how far.
    public struct SyncActivity: Sendable, Equatable {
        public var remote: String
        public var phase: String
        public var done: Int
        public var total: Int

        public init(remote: String, phase: String = "Starting", done: Int = 0, total: Int = 0) {
            self.remote = remote
            self.phase = phase
            self.done = done
            self.total = total
        }
    }

    /// The front panel's view.
    public var panel: PanelState {
        switch self {
        case .starting: .starting
        case .idle: .idle
        case .needsSetup: .needsSetup
        case .syncing: .syncing
        case .offline, .waitingForTime: .offline
        case .needsAttention(let attention, _): .attention(attention)
        case .stopping: .stopped
        }
    }

    /// How much a person needs to know, for the state a pass over several remotes ends in: the worst one's.
    var severity: Int {
        switch self {
        case .needsAttention(.storage, _): 5
        case .needsAttention(.login, _): 4
        case .needsAttention(.deletionsHeld, _): 3
        case .needsAttention(.unreachable, _): 2
        case .offline, .waitingForTime: 1
        case .starting, .idle, .needsSetup, .syncing, .stopping: 0
        }
    }

    /// The name `/api/status` and the metrics use.
    public var name: String {
        switch self {
        case .starting: "starting"
        case .idle: "idle"
        case .needsSetup: "setup"
        case .syncing: "syncing"
        case .offline: "offline"
        case .waitingForTime: "waiting_for_time"
        case .needsAttention: "attention"
        case .stopping: "stopping"
        }
    }

    /// One line for people, also systemd's `STATUS=`.
    public var summary: String {
        switch self {
        case .starting: "Starting"
        case .idle: "Idle: everything is in step"
        case .needsSetup: "Needs setup: no address book yet"
        case .syncing(let activity):
            activity.total > 0
                ? "Syncing \(activity.remote): \(activity.phase.lowercased()) \(activity.done) of \(activity.total)"
                : "Syncing \(activity.remote): \(activity.phase.lowercased())"
        case .offline: "Offline: waiting for the network"
        case .waitingForTime(let reason): reason
        case .needsAttention(_, let reason): reason
        case .stopping: "Stopping"
        }
    }

    /// What a person can do about it; nil when nothing is needed.
    public var advice: String? {
        if self == .needsSetup {
            return "Pair this browser with the box's button, then choose Add an address book below (or, over SSH, "
                + "run contactbox remote add)."
        }
        if case .waitingForTime = self {
            return "The box sets its clock from the network time (NTP) after it starts; nothing needs doing. If "
                + "this lasts, check that the box reaches the internet."
        }
        guard case .needsAttention(let attention, _) = self else { return nil }
        return switch attention {
        case .login:
            "The server refused the login. On a paired browser, under Settings, give the address book a new app "
                + "password (or sign in again); one set in /etc/contactbox is changed there. Then press Sync now."
        case .unreachable:
            "The server did not answer. It is retried on its own; check the URL and the server's status page if "
                + "this lasts."
        case .deletionsHeld:
            "Nothing was deleted. If the deletions are wanted, hold the button for 3 seconds to confirm them; "
                + "otherwise restore the contacts on the remote and sync again."
        case .storage:
            "The contact store could not be read or written. Check the disk (free space, errors in the journal) "
                + "and run contactbox check."
        }
    }

    /// Why attention is needed, as `/api/status` names it; nil when it is not.
    public var attentionName: String? {
        guard case .needsAttention(let attention, _) = self else { return nil }
        return switch attention {
        case .login: "login"
        case .unreachable: "unreachable"
        case .deletionsHeld: "deletions_held"
        case .storage: "storage"
        }
    }
}

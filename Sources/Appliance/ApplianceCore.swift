import Config
import FrontPanel
import Logging
import StatusServer
import SystemSupport

/// The daemon's decisions, as the `Planner` is the sync's: `(state, event, now) -> (state, [effect])`, pure, tested
/// without threads or waiting. It owns the appliance's state and what the page shows of it, the `Scheduler`, the
/// `UndoConfirmation`, the `PairingWindow` and the LED look. The `Daemon` around it is the only caller: it turns the button, signals, the
/// network, the page's requests and the worker's news into events, carries out the effects (a pass asked of the
/// worker, a line logged), and draws the core on the LEDs, the board and systemd's status line.
public struct ApplianceCore: Sendable, Equatable {
    /// An instant of both clocks: monotonic milliseconds for what is due, unix seconds for what the page shows.
    public struct Now: Sendable, Equatable {
        public var monotonic: Int64
        public var wall: Int64

        public init(monotonic: Int64, wall: Int64) {
            self.monotonic = monotonic
            self.wall = wall
        }

        public static func current() -> Now { Now(monotonic: monotonicMillis(), wall: wallClockSeconds()) }
    }

    public enum Event: Sendable, Equatable {
        /// The services are up: idle until the first pass says otherwise.
        case started
        /// Time passed: an armed undo may expire, a pass may be due.
        case tick
        /// The worker's news, in the order it posted them.
        case worker(SyncWorker.Event)
        case page(PageRequest)
        case button(ButtonPress)
        case networkBack
        /// The box's clock was set from the network (`ClockStatus`).
        case clockSet
        /// SIGHUP read a configuration without a problem; it is the worker's from now on.
        case reloaded(Configuration)
        /// The worker could not start: nothing can be synced.
        case workerFailed(String)
        /// SIGTERM or the demo's quit key: the box is going away.
        case stopping
    }

    public enum ButtonPress: Sendable, Equatable {
        case short
        case long
        /// A press held long enough to be a long one, not yet released.
        case longReached
        /// Held 10 s: forget every paired browser.
        case hold
        case holdReached
    }

    public enum Effect: Sendable, Equatable {
        /// Ask the worker for a pass (merged with one already waiting).
        case requestPass(SyncRequest)
        /// Ask the worker for the dry run of undoing a run.
        case previewUndo(run: Int64)
        /// The button paired the browser whose request waited (`approved`), or the request ended without it.
        case pairingDecided(id: String, approved: Bool)
        /// A hold of the button: every paired browser is forgotten.
        case forgetPairings
        /// Read the configuration again (the page saved the settings), as SIGHUP does; the store follows what the
        /// save did to remotes.
        case reload([RemoteChange])
        /// The day's care of the store: its check and a safety copy (`SyncWorker.requestCare`).
        case careForStore
        /// Recover the damaged store from its newest good safety copy (the page offered `from`; a long press
        /// confirmed), then report it (`SyncWorker.requestRecover`).
        case recoverStore(from: StatusSnapshot.Copy)
        case log(Logger.Level, Logger.Message, Logger.Metadata)
    }

    /// The first care of the store after the start: later than the start-up sync, early enough that a box that is
    /// switched off each night still gets its copy.
    public static let firstCare = Duration.seconds(10 * 60)
    /// Then once a day.
    public static let careInterval = Duration.seconds(24 * 3600)
    /// After a copy that gave way to a pass, or failed.
    public static let careRetry = Duration.seconds(30 * 60)

    /// A pass that ends in a blink would go unseen: after a press the sync LED blinks at least this long.
    public static let minimumSyncDisplay = Duration.milliseconds(1_500)

    /// What the page shows, but for the LEDs' levels (the panel's) and the log's events (the log's).
    public internal(set) var shown = StatusBoard.Contents()
    public private(set) var scheduler: Scheduler
    public internal(set) var undo = UndoConfirmation()
    public internal(set) var pairing = PairingWindow()
    /// How many address books are configured: none, and idle is "needs setup".
    public private(set) var remotes: Int
    private var showSyncingUntil: Int64 = 0
    /// A pass asked for has not started yet: the worker may take a while to open the store (or to finish the pass
    /// before), and the LEDs must not show idle meanwhile.
    private var passAwaited = false
    /// When the store's next care is due; `Int64.max` while one runs.
    public private(set) var nextCare: Int64
    /// SQLite's check found the store damaged: nothing is synced until it is recovered (on the page, confirmed by a
    /// long press, or `contactbox recover`).
    public private(set) var storeDamaged = false

    public init(sync: SyncSettings, remotes: Int, now: Int64) {
        scheduler = Scheduler(interval: sync.interval, fullCheck: sync.fullCheck, now: now)
        self.remotes = remotes
        nextCare = now + Self.firstCare.wholeMilliseconds
    }

    public var state: ApplianceState { shown.state }

    // MARK: Events

    public mutating func handle(_ event: Event, at now: Now) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .started:
            shown.state = settled(.idle)
        case .tick:
            if undo.expire(at: now.monotonic) { effects.append(undoExpired(run: undo.shown?.run ?? 0)) }
            if let request = pairing.expire(at: now.monotonic) {
                effects += [
                    .log(.notice, "Pairing not confirmed at the box in time", ["pairing.client": "\(request.address)"]),
                    .pairingDecided(id: request.id, approved: false),
                ]
            }
            if let request = scheduler.due(at: now.monotonic) {
                // Not due again while the worker picks it up (its own passStarted comes later).
                scheduler.passStarted(fullCheck: request.fullCheck, at: now.monotonic)
                effects.append(requestPass(request))
            }
            // Between passes: the copy gives way to a pass asked for meanwhile.
            if now.monotonic >= nextCare, !storeDamaged, !passAwaited, scheduler.nextPass != .max,
                state != .starting, state != .stopping
            {
                nextCare = .max
                effects.append(.careForStore)
            }
        case .worker(let news):
            effects = handle(news, at: now)
        case .page(let request):
            effects = handle(request, at: now)
        case .button(let press):
            effects = button(press, at: now.monotonic)
        case .networkBack:
            scheduler.networkCameBack(at: now.monotonic)
            effects.append(.log(.notice, "Network is back", [:]))
        case .clockSet:
            effects.append(.log(.notice, "The clock is set from the network time", [:]))
            // What waited for the time runs now; the store puts right what it dated before at its first write.
            if case .waitingForTime = state { effects.append(requestPass(SyncRequest(.clockSet))) }
        case .reloaded(let configuration):
            remotes = configuration.remotes.count
            if state == .needsSetup || state == .idle { shown.state = settled(.idle) }
            scheduler.reconfigure(
                interval: configuration.sync.interval, fullCheck: configuration.sync.fullCheck, now: now.monotonic)
            effects.append(.log(.notice, "Configuration reloaded", ["remotes": "\(configuration.remotes.count)"]))
            effects.append(requestPass(SyncRequest(.reload)))
        case .workerFailed(let message):
            shown.state = .needsAttention(.storage, reason: "Cannot start syncing: \(message)")
        case .stopping:
            shown.state = .stopping
        }
        shown.undo = undo.shown
        return effects
    }

    private mutating func handle(_ news: SyncWorker.Event, at now: Now) -> [Effect] {
        switch news {
        case .passStarted(let request):
            passAwaited = false
            scheduler.passStarted(fullCheck: request.fullCheck, at: now.monotonic)
            showSyncingUntil = now.monotonic + Self.minimumSyncDisplay.wholeMilliseconds
            return [.log(.info, "Sync pass started", ["sync.reasons": "\(request.reasons)"])]
        case .progress(let activity):
            if state != .stopping { shown.state = .syncing(activity) }
        case .passFinished(let result):
            scheduler.passFinished(result.schedule, at: now.monotonic)
            // A damaged store's attention stays until it is recovered, whatever a pass that ran meanwhile says.
            if state != .stopping, !storeDamaged { shown.state = settled(result.state) }
            var effects: [Effect] = [.log(.info, "Sync pass finished", ["appliance.state": "\(result.state.name)"])]
            if case .needsAttention(_, let reason) = result.state {
                effects.append(.log(.warning, "Attention needed", ["appliance.reason": "\(reason)"]))
            }
            return effects
        case .passTook(let duration):
            shown.lastSync = now.wall
            shown.counters.lastPass = duration
        case .storeFailed(let message):
            // The worker logged it (the journal and the page).
            shown.state = .needsAttention(.storage, reason: "The contact store cannot be opened: \(message)")
        case .storeChecked(let problems, let copies, let goodCopy):
            shown.copies = copies
            if nextCare == .max { nextCare = now.monotonic + Self.careInterval.wholeMilliseconds }
            // The worker logged it. Nothing is synced from a damaged store: a pass would spread what it reads.
            guard let problem = problems.first else { break }
            storeDamaged = true
            shown.damage = StatusSnapshot.Damage(problem: problem, copy: goodCopy)
            shown.state = .needsAttention(
                .storage,
                reason: "The store is damaged (SQLite's check: \(problem)). Nothing is synced until it is recovered,"
                    + " which puts back the newest good safety copy: on the status page, under Restore points"
                    + " (confirmed by a long press of the button), or with the box stopped, contactbox recover. The"
                    + " sync after it brings back what changed since.")
        case .copyPostponed, .copyFailed:
            nextCare = now.monotonic + Self.careRetry.wholeMilliseconds
        case .historyLoaded(let remotes):
            shown.remotes = remotes
        case .remoteSynced(let remote):
            if let index = shown.remotes.firstIndex(where: { $0.name == remote.name }) {
                shown.remotes[index] = remote
            } else {
                shown.remotes.append(remote)
            }
            shown.counters.syncRuns[remote.lastResult, default: 0] += 1
            shown.counters.items += remote.counts
        case .contactsCounted(let contacts):
            shown.contacts = contacts
        case .restorePoints(let runs):
            shown.runs = runs
        case .undoPreviewed(let result):
            undo.previewed(result)
            guard result.phase == .failed else { return [] }
            return [
                .log(
                    .warning, "Undo not possible",
                    ["undo.run": "\(result.run)", "undo.error": "\(result.message ?? "")"])
            ]
        case .undoFinished(let result):
            undo.finished(result)
            guard result.recover != nil, result.phase == .done else { return [Self.undoFinished(result)] }
            // Sound again: the damage's attention goes, and a pass brings back what changed since the copy.
            storeDamaged = false
            shown.damage = nil
            if state != .stopping { shown.state = settled(.idle) }
            return [Self.undoFinished(result), requestPass(SyncRequest(.recover, fullCheck: true))]
        }
        return []
    }

    /// The undo's result, in the journal and the page's events: counts only, never names (the events are shown
    /// without the password).
    static func undoFinished(_ result: StatusSnapshot.Undo) -> Effect {
        if let recover = result.recover {
            return result.phase == .done
                ? .log(
                    .notice, "Store recovered from a safety copy; syncing to bring back changes since",
                    [
                        "store.copy_made": "\(recover.copyMadeAt)", "store.contacts": "\(recover.contacts ?? 0)",
                        "store.kept_as": "\(recover.keptAs ?? "")",
                    ])
                : .log(.error, "Store not recovered", ["store.error": "\(result.message ?? "")"])
        }
        if result.restore != nil {
            return result.phase == .done
                ? .log(
                    .notice, "Restore done",
                    ["restore.history": "\(result.run)", "restore.run": "\(result.undoRun.map { "\($0)" } ?? "none")"])
                : .log(
                    .error, "Restore failed",
                    ["restore.history": "\(result.run)", "restore.error": "\(result.message ?? "")"])
        }
        guard result.phase == .done else {
            return .log(.error, "Undo failed", ["undo.run": "\(result.run)", "undo.error": "\(result.message ?? "")"])
        }
        let metadata: Logger.Metadata = [
            "undo.run": "\(result.run)", "undo.own_run": "\(result.undoRun.map { "\($0)" } ?? "none")",
            "undo.counts": .string(
                "\(result.revived) brought back, \(result.reverted) put back, \(result.deleted) deleted, "
                    + "\(result.skipped) skipped"),
        ]
        return result.skipped > 0
            ? .log(.warning, "Undo done; contacts changed since the run were left alone", metadata)
            : .log(.notice, "Undo done", metadata)
    }

    /// Idle with no address book is "needs setup".
    func settled(_ state: ApplianceState) -> ApplianceState {
        state == .idle && remotes == 0 ? .needsSetup : state
    }

    /// Asks the worker for a pass; the sync LED blinks from now until it has run.
    mutating func requestPass(_ request: SyncRequest) -> Effect {
        guard !storeDamaged else {
            return .log(.warning, "Not syncing: the store is damaged (contactbox recover)", [:])
        }
        passAwaited = true
        return .requestPass(request)
    }

    // MARK: What it looks like

    /// The LEDs' look at `now`. An armed undo asks for the button whatever else goes on: its look wins until it is
    /// answered or expires. A pass asked for, or one that ended less than `minimumSyncDisplay` after it started,
    /// blinks the sync LED on an idle box.
    public func look(at now: Int64) -> PanelState {
        if undo.isArmed { return .awaitingLongPress }
        if pairing.isOpen { return .pairing }
        if state == .idle || state == .needsSetup, now < showSyncingUntil || passAwaited { return .syncing }
        return state.panel
    }

    /// systemd's status line and the simulated panel's.
    public var statusLine: String {
        if undo.isArmed {
            if undo.recover != nil {
                return "Waiting for a long press to recover the store from a safety copy (a short press cancels)"
            }
            if undo.restore != nil { return "Waiting for a long press to restore a contact (a short press cancels)" }
            return "Waiting for a long press to undo run \(undo.shown?.run ?? 0) (a short press cancels)"
        }
        if let request = pairing.waiting {
            return "Waiting for a short press to pair the browser at \(request.address)"
        }
        return state.summary
    }

    /// Unix seconds of the next scheduled pass; nil while one runs.
    public func nextSync(at now: Now) -> Int64? {
        scheduler.nextPass == .max ? nil : now.wall + (scheduler.nextPass - now.monotonic + 999) / 1000
    }

    /// When the core next changes on its own (a pass due, the syncing look's end, an undo's or a pairing's deadline);
    /// `Int64.max` when only an event can change it.
    public func nextWake(after now: Int64) -> Int64 {
        var wakeAt = min(scheduler.nextPass, nextCare)
        if showSyncingUntil > now { wakeAt = min(wakeAt, showSyncingUntil) }
        for deadline in [undo.nextWake, pairing.nextWake].compactMap({ $0 }) { wakeAt = min(wakeAt, deadline) }
        return wakeAt
    }
}

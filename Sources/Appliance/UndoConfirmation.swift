import StatusServer
import SystemSupport

/// The undo asked for on the status page, as the main loop follows it (it alone changes it; the worker's dry run
/// and result reach it as events). Pure and driven by the caller's monotonic clock, like the `Scheduler`.
///
/// The page can only ask: `preview` (the worker works out what the undo would change), then `arm` once that is
/// shown. Armed, the box waits ``deadline`` for a long press of its button: the long press confirms and the undo
/// runs, a short press cancels, and without either it expires. A page alone never changes a contact. A contact's
/// restore and the recover of a damaged store from a safety copy are armed at once and confirmed the same way.
///
/// Precedence: while an undo is armed, the button answers it and nothing else. A long press confirms the undo, not
/// deletions held by the guard (those wait for their own long press after the undo's pass), and a short press
/// cancels it rather than syncing.
public struct UndoConfirmation: Sendable, Equatable {
    /// How long an armed undo waits for the long press.
    public static let deadline = Duration.seconds(120)

    /// What the page shows; nil until an undo is asked for.
    public private(set) var shown: StatusSnapshot.Undo?
    /// Monotonic milliseconds until which a long press confirms, while armed.
    public private(set) var armedUntil: Int64?
    /// The restore a contact's page armed instead of an undo (shown as `restore`): what a long press carries out.
    public private(set) var restore: PageRestore?
    /// The safety copy a recover armed on the page puts in place of the damaged store (shown as `recover`).
    public private(set) var recover: StatusSnapshot.Copy?

    public init() {}

    /// Waiting for the long press.
    public var isArmed: Bool { shown?.phase == .armed }

    /// Armed, or confirmed and not yet done: no other undo is taken meanwhile.
    public var isBusy: Bool { shown?.phase == .armed || shown?.phase == .confirmed }

    /// The page asks what undoing `run` would change. Returns whether the worker should work it out; false while
    /// another undo waits for the button or runs.
    public mutating func preview(run: Int64) -> Bool {
        guard !isBusy else { return false }
        shown = StatusSnapshot.Undo(run: run, phase: .checking)
        armedUntil = nil
        restore = nil
        recover = nil
        return true
    }

    /// A contact's page asks to restore a version, confirmed by the button (its page showed what would change):
    /// armed at once, as an undo is. Returns false while another undo or restore waits for the button or runs.
    public mutating func arm(_ request: PageRestore, at now: Int64, wallClock: Int64) -> Bool {
        guard !isBusy else { return false }
        shown = StatusSnapshot.Undo(
            run: request.historyID, phase: .armed, deadline: wallClock + Self.deadline.wholeSecondsRoundingUp,
            restore: request.name.isEmpty ? "(no name)" : request.name)
        armedUntil = now + Self.deadline.wholeMilliseconds
        restore = request
        recover = nil
        return true
    }

    /// The page asks to recover the damaged store from `copy` (the newest that passed the check): armed at once.
    /// Returns false while another undo, restore or recover waits for the button or runs.
    public mutating func arm(recoverFrom copy: StatusSnapshot.Copy, at now: Int64, wallClock: Int64) -> Bool {
        guard !isBusy else { return false }
        shown = StatusSnapshot.Undo(
            run: 0, phase: .armed, deadline: wallClock + Self.deadline.wholeSecondsRoundingUp,
            recover: StatusSnapshot.Undo.Recover(copyMadeAt: copy.madeAt))
        armedUntil = now + Self.deadline.wholeMilliseconds
        restore = nil
        recover = copy
        return true
    }

    /// The worker's dry run (`previewed`, or `failed` for a run that cannot be undone): shown when it answers the
    /// preview still asked for.
    public mutating func previewed(_ result: StatusSnapshot.Undo) {
        guard let shown, shown.phase == .checking, shown.run == result.run else { return }
        self.shown = result
    }

    /// The page's confirmation: arms the undo of `run` when its preview is the one shown. `wallClock` (unix
    /// seconds) gives the page its deadline. Returns whether it armed.
    public mutating func arm(run: Int64, at now: Int64, wallClock: Int64) -> Bool {
        guard var undo = shown, undo.phase == .previewed, undo.run == run else { return false }
        undo.phase = .armed
        undo.deadline = wallClock + Self.deadline.wholeSecondsRoundingUp
        shown = undo
        armedUntil = now + Self.deadline.wholeMilliseconds
        return true
    }

    /// Cancelled on the page or by a short press. Returns whether there was a preview or an armed undo to cancel.
    public mutating func cancel() -> Bool {
        let cancellable: [StatusSnapshot.Undo.Phase] = [.checking, .previewed, .armed]
        guard let phase = shown?.phase, cancellable.contains(phase) else { return false }
        end(.cancelled)
        return true
    }

    /// Returns whether the armed undo expired at `now`.
    public mutating func expire(at now: Int64) -> Bool {
        guard isArmed, let armedUntil, now >= armedUntil else { return false }
        end(.expired)
        return true
    }

    /// What a press of the button did while an undo was armed.
    public enum ButtonOutcome: Sendable, Equatable {
        /// Nothing armed: the button does what it always does.
        case notArmed
        /// A long press: undo `run` now.
        case confirmed(run: Int64)
        /// A long press: carry out this restore now.
        case restoreConfirmed(PageRestore)
        /// A long press: recover the store now; the page offered this copy (the worker takes the newest good one then).
        case recoverConfirmed(StatusSnapshot.Copy)
        /// A short press.
        case cancelled
        /// Too late: the deadline passed before the press ended (and the press does nothing else).
        case expired
    }

    /// A press of the button: while armed, a long one confirms and a short one cancels.
    public mutating func button(long: Bool, at now: Int64) -> ButtonOutcome {
        guard isArmed, let run = shown?.run else { return .notArmed }
        if expire(at: now) { return .expired }
        guard long else {
            end(.cancelled)
            return .cancelled
        }
        end(.confirmed)
        if let restore { return .restoreConfirmed(restore) }
        if let recover { return .recoverConfirmed(recover) }
        return .confirmed(run: run)
    }

    /// The worker's undo of the confirmed run, or its recover (`done` or `failed`).
    public mutating func finished(_ result: StatusSnapshot.Undo) {
        guard shown?.phase == .confirmed, shown?.run == result.run, (shown?.recover == nil) == (result.recover == nil)
        else { return }
        shown = result
    }

    /// When the main loop must wake to expire the armed undo; nil when none is armed.
    public var nextWake: Int64? { isArmed ? armedUntil : nil }

    private mutating func end(_ phase: StatusSnapshot.Undo.Phase) {
        shown?.phase = phase
        shown?.deadline = nil
        armedUntil = nil
    }
}

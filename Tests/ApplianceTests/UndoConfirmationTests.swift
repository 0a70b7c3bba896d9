import StatusServer
import Testing

@testable import Appliance

/// An undo of `run` previewed (3 contacts put back) and armed at `now`.
func armedUndo(run: Int64 = 7, at now: Int64 = 10_000) -> UndoConfirmation {
    var undo = UndoConfirmation()
    #expect(undo.preview(run: run) == true)
    undo.previewed(StatusSnapshot.Undo(run: run, phase: .previewed, reverted: 3))
    #expect(undo.arm(run: run, at: now, wallClock: 1_700_000_000) == true)
    return undo
}

@Suite("The undo's confirmation: the page asks, the button decides")
struct UndoConfirmationTests {
    @Test("armed, a long press confirms that run; the worker's result is shown")
    func longPressConfirms() {
        var undo = armedUndo()
        #expect(undo.isArmed && undo.isBusy)
        #expect(undo.shown?.deadline == 1_700_000_120)
        let wake: Int64? = 130_000
        #expect(undo.nextWake == wake)
        #expect(undo.button(long: true, at: 20_000) == .confirmed(run: 7))
        #expect(undo.shown?.phase == .confirmed)
        #expect(!undo.isArmed && undo.isBusy)
        #expect(undo.nextWake == nil)
        // Nothing armed any more: the next press is the button's ordinary one.
        #expect(undo.button(long: true, at: 21_000) == .notArmed)
        undo.finished(StatusSnapshot.Undo(run: 7, phase: .done, reverted: 3, undoRun: 9))
        #expect(undo.shown?.phase == .done)
        #expect(undo.shown?.undoRun == 9)
        #expect(!undo.isBusy)
    }

    @Test("armed, nothing until the deadline: it expires, and a late long press does nothing")
    func deadlineExpires() {
        var undo = armedUndo()
        #expect(undo.expire(at: 10_000 + 119_999) == false)
        #expect(undo.isArmed)
        #expect(undo.expire(at: 10_000 + 120_000) == true)
        #expect(undo.shown?.phase == .expired)
        #expect(undo.shown?.deadline == nil)
        #expect(undo.expire(at: 10_000 + 130_000) == false)
        #expect(undo.button(long: true, at: 10_000 + 130_000) == .notArmed)
        #expect(UndoConfirmation.deadline == .seconds(120))
    }

    @Test("a long press that ends after the deadline expires the undo and confirms nothing")
    func pressEndingLate() {
        var undo = armedUndo()
        #expect(undo.button(long: true, at: 10_000 + 120_500) == .expired)
        #expect(undo.shown?.phase == .expired)
    }

    @Test("a short press while armed cancels the undo (and is no sync)")
    func shortPressCancels() {
        var undo = armedUndo()
        #expect(undo.button(long: false, at: 11_000) == .cancelled)
        #expect(undo.shown?.phase == .cancelled)
        #expect(!undo.isBusy)
        #expect(undo.button(long: false, at: 12_000) == .notArmed)
    }

    @Test("arming needs the preview of that very run, shown")
    func armNeedsPreview() {
        var undo = UndoConfirmation()
        #expect(undo.arm(run: 7, at: 0, wallClock: 0) == false)
        #expect(undo.preview(run: 7) == true)
        #expect(undo.arm(run: 7, at: 0, wallClock: 0) == false)  // still checking
        undo.previewed(StatusSnapshot.Undo(run: 8, phase: .previewed))  // an answer to another question
        #expect(undo.shown?.phase == .checking)
        undo.previewed(StatusSnapshot.Undo(run: 7, phase: .failed, message: "no run 7 in the store"))
        #expect(undo.arm(run: 7, at: 0, wallClock: 0) == false)
        #expect(undo.shown?.message == "no run 7 in the store")
        #expect(undo.preview(run: 7) == true)
        undo.previewed(StatusSnapshot.Undo(run: 7, phase: .previewed))
        #expect(undo.arm(run: 6, at: 0, wallClock: 0) == false)
        #expect(undo.arm(run: 7, at: 0, wallClock: 0) == true)
    }

    @Test("while one undo waits for the button or runs, no other is previewed; the page may cancel the armed one")
    func oneAtATime() {
        var undo = armedUndo(run: 7)
        #expect(undo.preview(run: 5) == false)
        #expect(undo.shown?.run == 7)
        #expect(undo.cancel() == true)
        #expect(undo.shown?.phase == .cancelled)
        #expect(undo.cancel() == false)
        #expect(undo.preview(run: 5) == true)

        var running = armedUndo(run: 7)
        #expect(running.button(long: true, at: 11_000) == .confirmed(run: 7))
        #expect(running.preview(run: 5) == false)
        #expect(running.cancel() == false)
        running.finished(StatusSnapshot.Undo(run: 7, phase: .failed, message: "disk full"))
        #expect(running.shown?.phase == .failed)
        #expect(running.preview(run: 5) == true)
    }

    @Test("a confirmed undo rides on the pass's request, and merging keeps it")
    func requestCarriesUndo() {
        let request = SyncRequest(.undo, undoRun: 7)
        #expect(request.merged(with: SyncRequest(.interval)).undoRun == 7)
        #expect(SyncRequest(.button).merged(with: request).undoRun == 7)
        #expect(!request.confirmDeletions)
        #expect(request.reasons == "undo")
    }

    @Test("a restore from a contact's page arms at once; a long press hands it on, a short one cancels; one at a time")
    func restoreArmed() {
        var undo = UndoConfirmation()
        let restore = PageRestore(uid: "ada", historyID: 12, name: "Ada Lovelace")
        let armed = undo.arm(restore, at: 10_000, wallClock: 1_700_000_000)
        #expect(armed)
        #expect(undo.isArmed && undo.shown?.restore == "Ada Lovelace" && undo.shown?.deadline == 1_700_000_120)
        let previewed = undo.preview(run: 5)
        #expect(!previewed, "no undo while the restore waits")
        let second = undo.arm(PageRestore(uid: "bob", historyID: 13, name: "Bob"), at: 11_000, wallClock: 0)
        #expect(!second)
        let confirmed = undo.button(long: true, at: 20_000)
        #expect(confirmed == .restoreConfirmed(restore))
        undo.finished(StatusSnapshot.Undo(run: 12, phase: .done, undoRun: 30, restore: "Ada Lovelace"))
        #expect(undo.shown?.phase == .done && undo.shown?.undoRun == 30 && !undo.isBusy)

        let unnamed = undo.arm(PageRestore(uid: "bob", historyID: 13, name: ""), at: 30_000, wallClock: 0)
        #expect(unnamed && undo.shown?.restore == "(no name)")
        let cancelled = undo.button(long: false, at: 31_000)
        #expect(cancelled == .cancelled)
        // An undo after it is an undo again, not the restore.
        let again = undo.preview(run: 7)
        undo.previewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 1))
        let undoArmed = undo.arm(run: 7, at: 40_000, wallClock: 0)
        let undone = undo.button(long: true, at: 41_000)
        #expect(again && undoArmed && undone == .confirmed(run: 7))
    }

    @Test("a recover of the damaged store arms at once; a long press hands on the copy, a short one cancels")
    func recoverArmed() {
        var undo = UndoConfirmation()
        let copy = StatusSnapshot.Copy(madeAt: 1_699_990_000, bytes: 40_960)
        let armed = undo.arm(recoverFrom: copy, at: 10_000, wallClock: 1_700_000_000)
        #expect(armed)
        #expect(undo.isArmed && undo.shown?.run == 0 && undo.shown?.deadline == 1_700_000_120)
        #expect(undo.shown?.recover == StatusSnapshot.Undo.Recover(copyMadeAt: 1_699_990_000))
        #expect(undo.nextWake == 130_000)
        // One change at a time: no undo, restore or second recover while it waits.
        let previewed = undo.preview(run: 5)
        let restored = undo.arm(PageRestore(uid: "ada", historyID: 12, name: "Ada"), at: 11_000, wallClock: 0)
        let again = undo.arm(recoverFrom: copy, at: 11_000, wallClock: 0)
        #expect(!previewed && !restored && !again)
        #expect(undo.button(long: true, at: 20_000) == .recoverConfirmed(copy))
        #expect(undo.shown?.phase == .confirmed && undo.isBusy)
        // An undo's result of run 0 is not the recover's.
        undo.finished(StatusSnapshot.Undo(run: 0, phase: .done))
        #expect(undo.shown?.phase == .confirmed)
        let done = StatusSnapshot.Undo(
            run: 0, phase: .done,
            recover: StatusSnapshot.Undo.Recover(copyMadeAt: 1_699_990_000, contacts: 20, keptAs: "/s.damaged-1"))
        undo.finished(done)
        #expect(undo.shown == done && !undo.isBusy)

        let rearmed = undo.arm(recoverFrom: copy, at: 30_000, wallClock: 0)
        #expect(rearmed && undo.button(long: false, at: 31_000) == .cancelled)
        #expect(undo.shown?.phase == .cancelled && undo.shown?.recover != nil)
        let expiring = undo.arm(recoverFrom: copy, at: 40_000, wallClock: 0)
        #expect(expiring && !undo.expire(at: 159_999) && undo.expire(at: 160_000))
        #expect(undo.shown?.phase == .expired && undo.button(long: true, at: 170_000) == .notArmed)
        // An undo after it is an undo again, not the recover.
        let preview = undo.preview(run: 7)
        undo.previewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 1))
        let undoArmed = undo.arm(run: 7, at: 200_000, wallClock: 0)
        #expect(preview && undoArmed && undo.recover == nil && undo.shown?.recover == nil)
        #expect(undo.button(long: true, at: 201_000) == .confirmed(run: 7))
    }
}

import Logging
import StatusServer

// What a person asks of the box: on the status page (sync now, the undo's steps, pairing, a settings save) and with
// its button (a press, a long press, a hold).
extension ApplianceCore {
    /// A request from the status page (the server's thread posted it to `PageRequests`).
    mutating func handle(_ request: PageRequest, at now: Now) -> [Effect] {
        switch request {
        case .syncNow:
            return [.log(.notice, "Status page: sync now", [:]), requestPass(SyncRequest(.statusPage))]
        case .undo(.preview(let run)):
            guard undo.preview(run: run) else {
                return [.log(.notice, "Undo preview refused: another undo waits for the button or runs", [:])]
            }
            return [.log(.info, "Status page: undo preview", ["undo.run": "\(run)"]), .previewUndo(run: run)]
        case .undo(.arm(let run)):
            guard !pairing.isOpen else {
                return [.log(.notice, "Undo not armed: a browser waits to be paired", ["undo.run": "\(run)"])]
            }
            guard undo.arm(run: run, at: now.monotonic, wallClock: now.wall) else {
                return [.log(.notice, "Undo not armed: its preview is not the one shown", ["undo.run": "\(run)"])]
            }
            return [
                .log(
                    .notice, "Undo armed on the status page: hold the button for 3 seconds to confirm",
                    ["undo.run": "\(run)", "undo.deadline": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s"])
            ]
        case .undo(.cancel):
            guard undo.cancel() else { return [] }
            if undo.recover != nil { return [.log(.notice, "Recover cancelled on the status page", [:])] }
            return [.log(.notice, "Undo cancelled on the status page", ["undo.run": "\(undo.shown?.run ?? 0)"])]
        case .undo(.recover):
            // Offered only while the store is damaged, from the copy the check found good.
            guard storeDamaged, let copy = shown.damage?.copy else {
                return [
                    .log(
                        .notice,
                        storeDamaged
                            ? "Recover not armed: no safety copy passes the check"
                            : "Recover not armed: the store is sound",
                        [:])
                ]
            }
            let metadata: Logger.Metadata = ["store.copy_made": "\(copy.madeAt)"]
            guard !pairing.isOpen else {
                return [.log(.notice, "Recover not armed: a browser waits to be paired", metadata)]
            }
            guard undo.arm(recoverFrom: copy, at: now.monotonic, wallClock: now.wall) else {
                return [.log(.notice, "Recover not armed: another change waits for the button or runs", metadata)]
            }
            return [
                .log(
                    .notice, "Recover armed on the status page: hold the button for 3 seconds to confirm", metadata)
            ]
        case .restore(let restore):
            let metadata: Logger.Metadata = ["restore.history": "\(restore.historyID)"]
            guard !pairing.isOpen else {
                return [.log(.notice, "Restore not armed: a browser waits to be paired", metadata)]
            }
            guard undo.arm(restore, at: now.monotonic, wallClock: now.wall) else {
                return [.log(.notice, "Restore not armed: another change waits for the button or runs", metadata)]
            }
            return [
                .log(.notice, "Restore armed on a contact's page: hold the button for 3 seconds to confirm", metadata)
            ]
        case .settingsSaved(let changes):
            return [.log(.notice, "Settings saved on the status page", [:]), .reload(changes)]
        case .pair(let request):
            let metadata: Logger.Metadata = ["pairing.client": "\(request.address)"]
            guard !undo.isArmed else {
                return [
                    .log(.notice, "Pairing refused: an undo waits for the button", metadata),
                    .pairingDecided(id: request.id, approved: false),
                ]
            }
            guard pairing.request(request, at: now.monotonic) else {
                return [
                    .log(.notice, "Pairing refused: another browser waits to be paired", metadata),
                    .pairingDecided(id: request.id, approved: false),
                ]
            }
            return [.log(.notice, "A browser asks to be paired: press the button within 2 minutes", metadata)]
        }
    }

    /// A short press syncs now; a long press confirms held deletions, or clears an error and retries. While an undo
    /// is armed the button answers it and nothing else (`UndoConfirmation`): long confirms, short cancels.
    mutating func button(_ press: ButtonPress, at now: Int64) -> [Effect] {
        let long: Bool
        switch press {
        case .longReached: return [.log(.info, "Long press: release to confirm", [:])]
        case .holdReached: return [.log(.info, "Button held 10 s: release to forget every paired browser", [:])]
        case .hold:
            shown.counters.buttonPresses += 1
            return [.log(.notice, "Button held 10 s: every paired browser forgotten", [:]), .forgetPairings]
        case .short: long = false
        case .long: long = true
        }
        shown.counters.buttonPresses += 1
        let run = undo.shown?.run ?? 0
        switch undo.button(long: long, at: now) {
        case .notArmed:
            break
        case .confirmed(let run):
            return [
                .log(.notice, "Long press: undo confirmed", ["undo.run": "\(run)"]),
                requestPass(SyncRequest(.undo, undoRun: run)),
            ]
        case .recoverConfirmed(let copy):
            return [
                .log(.notice, "Long press: recover confirmed", ["store.copy_made": "\(copy.madeAt)"]),
                .recoverStore(from: copy),
            ]
        case .restoreConfirmed(let restore):
            var request = SyncRequest(.undo)
            request.restore = restore
            return [
                .log(.notice, "Long press: restore confirmed", ["restore.history": "\(restore.historyID)"]),
                requestPass(request),
            ]
        case .cancelled:
            if undo.recover != nil { return [.log(.notice, "Button pressed: recover cancelled", [:])] }
            return [.log(.notice, "Button pressed: undo cancelled", ["undo.run": "\(run)"])]
        case .expired:
            return [undoExpired(run: run)]
        }
        if !long, pairing.isOpen {
            guard let request = pairing.button(at: now) else { return [] }
            return [
                .log(.notice, "Button pressed: browser paired", ["pairing.client": "\(request.address)"]),
                .pairingDecided(id: request.id, approved: true),
            ]
        }
        guard long else { return [.log(.notice, "Button pressed: sync now", [:]), requestPass(SyncRequest(.button))] }
        // A damaged store's look stays until it is recovered: a long press clears no damage.
        guard !storeDamaged else { return [requestPass(SyncRequest(.longPress))] }
        let confirming = state.panel == .attention(.deletionsHeld)
        shown.state = settled(.idle)
        return [
            .log(
                .notice, confirming ? "Long press: deletions confirmed" : "Long press: clearing the error and retrying",
                [:]),
            requestPass(SyncRequest(.longPress, confirmDeletions: confirming)),
        ]
    }

    func undoExpired(run: Int64) -> Effect {
        if undo.recover != nil {
            return .log(
                .notice, "Recover not confirmed at the box in time: cancelled",
                ["undo.waited": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s"])
        }
        return .log(
            .notice, "Undo not confirmed at the box in time: cancelled",
            ["undo.run": "\(run)", "undo.waited": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s"])
    }
}

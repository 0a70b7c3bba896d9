import ContactStore
import StatusServer
import StoreContacts

// The undo from the status page, on the worker's thread (the store is its): the dry run the page shows before it
// asks, the undo a long press confirms, and the restore points the page offers.
extension SyncPass {
    /// What undoing `run` would change: the store's dry run, with the first contacts it would change. Writes nothing.
    public func previewUndo(run: Int64) -> StatusSnapshot.Undo {
        undo(run: run, dryRun: true)
    }

    /// Undoes `run` in the store, as a run of its own (kind `undo`, so it can be undone in turn). The pass that
    /// follows carries it to every remote, through the deletion guard like any other change.
    public func undo(run: Int64) -> StatusSnapshot.Undo {
        let result = undo(run: run, dryRun: false)
        if result.phase == .done {
            refreshRestorePoints(force: true)
            if let contacts = try? store.count() { news(.contactsCounted(contacts)) }
        }
        return result
    }

    /// Puts back the version a contact's page asked for and a long press confirmed: through the contacts' backend
    /// the page itself writes with (a run of its own, kind `restore`), on a connection of this thread's own.
    public func restore(_ request: PageRestore) -> StatusSnapshot.Undo {
        let name = request.name.isEmpty ? "(no name)" : request.name
        do throws(ContactsError) {
            let outcome = try StoreContacts(path: store.path).write(
                .restore(uid: request.uid, historyID: request.historyID, by: "the box's button"))
            refreshRestorePoints(force: true)
            if let contacts = try? store.count() { news(.contactsCounted(contacts)) }
            return StatusSnapshot.Undo(
                run: request.historyID, phase: .done, undoRun: outcome.runID, restore: name)
        } catch {
            return StatusSnapshot.Undo(run: request.historyID, phase: .failed, message: error.message, restore: name)
        }
    }

    private func undo(run: Int64, dryRun: Bool) -> StatusSnapshot.Undo {
        var contacts: [StatusSnapshot.Undo.Contact] = []
        do {
            let summary = try store.undo(run: run, dryRun: dryRun) { change in
                // The first few for the page (behind its password); the counts cover the rest.
                if contacts.count < StatusSnapshot.Undo.contactLimit {
                    contacts.append(.init(name: change.displayName, action: change.action.rawValue))
                }
            }
            return StatusSnapshot.Undo(
                run: run, phase: dryRun ? .previewed : .done, revived: summary.revived, reverted: summary.reverted,
                deleted: summary.deleted, skipped: summary.skipped, undoRun: summary.runID, contacts: contacts)
        } catch {
            return StatusSnapshot.Undo(run: run, phase: .failed, message: "\(error)")
        }
    }

    /// The restore points for the page (`restorePoints`), read again when the store changed since the last read (a change sequence
    /// number moved, or history was pruned): a pass that only sent contacts out costs no query. One query of at
    /// most `StatusSnapshot.runLimit` runs (`ContactStore.restorePoints`). A failure leaves the last list.
    func refreshRestorePoints(force: Bool = false) {
        do {
            let seq = try store.currentChangeSeq()
            guard force || seq != restorePointsSeq else { return }
            let runs = try store.restorePoints(limit: StatusSnapshot.runLimit).map(Self.restorePoint)
            restorePointsSeq = seq
            news(.restorePoints(runs))
        } catch {
            logger.warning("The restore points could not be read", metadata: ["store.error": "\(error)"])
        }
    }

    static func restorePoint(_ point: ContactStore.RestorePoint) -> StatusSnapshot.Run {
        let run = point.run
        return StatusSnapshot.Run(
            id: run.id, kind: run.kind.rawValue, remote: point.remoteName, startedAt: run.startedAt / 1000,
            finishedAt: run.finishedAt.map { $0 / 1000 }, outcome: run.outcome?.rawValue, created: point.created,
            updated: point.updated, deleted: point.deleted,
            remoteCounts: run.kind == .sync ? run.counts : nil, note: run.note)
    }
}

import SQLite
import VCard

// Taking changes back: one contact to an earlier version or time, the whole store to a time, or what one run did.
// Each is a local operation (a run of its own, kind `restore` or `undo`) whose history rows say what it replaced,
// so that it can be undone in turn. Work goes a chunk of at most `chunkLimit` contacts per transaction; a dry run
// reports the same changes and writes nothing. The next sync carries the changes to every remote like any local
// edit (their change sequence numbers are new), through the sync's deletion guard.
extension ContactStore {
    /// Puts contact `uid` in `target` state (a version from its history, or its state at a time), as operation
    /// `runID`. Returns the change, or nil when it already is in that state.
    public func restore(uid: String, to target: ContactState, reason: String, runID: Int64?, dryRun: Bool = false)
        throws -> RestoreChange?
    {
        try db.transaction(dryRun ? .deferred : .immediate) {
            try apply(
                target, to: uid, origin: HistoryOrigin(reason: reason, remoteID: nil, runID: runID), dryRun: dryRun)
        }
    }

    /// Puts every contact as it was at `time` (unix milliseconds): those created since are deleted, those deleted
    /// since come back, those edited since go back. Calls `report` with each change, in row order, and returns
    /// the totals with the operation's run (nil in a dry run).
    public func restore(
        asOf time: Int64, note: String, dryRun: Bool = false, _ report: (RestoreChange) throws -> Void = { _ in }
    ) throws -> RestoreSummary {
        let runID = dryRun ? nil : try beginOperation(.restore, note: note)
        var summary = RestoreSummary(runID: runID)
        let origin = HistoryOrigin(reason: "restore \(note)", remoteID: nil, runID: runID)
        try forEachContactPage { page in
            let changes = try db.transaction(dryRun ? .deferred : .immediate) {
                try page.compactMap { contact in
                    try apply(try state(of: contact, at: time), to: contact.uid, origin: origin, dryRun: dryRun)
                }
            }
            for change in changes {
                summary.count(change.action)
                try report(change)
            }
        }
        if let runID { try finishOperation(id: runID) }
        return summary
    }

    /// Reverses what run `runID` (a sync, or a local operation: an undo can be undone) did to the store: each
    /// contact it changed goes back to its state just before the run. A contact changed again after the run is
    /// left as it is and reported as `skippedChangedSince` (its later change is newer than what the undo knows;
    /// `restore UID --version` takes it back by hand). Archived rows (a conflict's loser) changed nothing and are
    /// not undone.
    public func undo(
        run runID: Int64, dryRun: Bool = false, _ report: (RestoreChange) throws -> Void = { _ in }
    ) throws -> RestoreSummary {
        guard let run = try syncRun(id: runID) else {
            throw ContactStoreError(.notFound, "no run \(runID) in the store (see `contactbox runs`)")
        }
        guard run.finishedAt != nil else {
            throw ContactStoreError(
                .invalidArgument,
                "run \(runID) has not finished; undo it once it has (or once the next start marks it"
                    + " interrupted)")
        }
        let undoID = dryRun ? nil : try beginOperation(.undo, note: "undo of run \(runID)")
        var summary = RestoreSummary(runID: undoID)
        let origin = HistoryOrigin(reason: "undo of run \(runID)", remoteID: nil, runID: undoID)
        var afterID: Int64 = 0
        while true {
            // history_run: the run's rows in the order it wrote them. A UID is taken back at its first row in the
            // run, and passed over at the others.
            let page = try db.query(
                "SELECT id, uid FROM history WHERE run_id = ? AND id > ? AND kind <> 'archived' ORDER BY id LIMIT ?",
                runID, afterID, Self.chunkLimit
            ) { row in (id: try row.int64(0), uid: try row.string(1)) }
            guard let lastID = page.last?.id else { break }
            let changes = try db.transaction(dryRun ? .deferred : .immediate) {
                try page.compactMap { row -> RestoreChange? in
                    // The UID's few rows (history_run would read all of the run's), the last of them in the run
                    // if this is the first.
                    guard
                        let last = try db.scalarInt64(
                            """
                            SELECT max(id) FROM history INDEXED BY history_uid
                            WHERE uid = ? AND run_id = ? AND kind <> 'archived' HAVING min(id) = ?
                            """, row.uid, runID, row.id)
                    else { return nil }
                    let changedSince = try db.scalarInt64(
                        "SELECT id FROM history WHERE uid = ? AND id > ? AND kind <> 'archived' LIMIT 1", row.uid, last)
                    if changedSince != nil {
                        let name = try storedRow(uid: row.uid)?.displayName ?? ""
                        return RestoreChange(uid: row.uid, displayName: name, action: .skippedChangedSince)
                    }
                    guard let first = try historyEntry(id: row.id), let before = first.stateBefore else {
                        return nil
                    }
                    return try apply(before, to: row.uid, origin: origin, dryRun: dryRun)
                }
            }
            for change in changes {
                summary.count(change.action)
                try report(change)
            }
            afterID = lastID
        }
        if let undoID { try finishOperation(id: undoID) }
        return summary
    }

    /// Puts `uid` in state `target`, recording what it replaces with `origin`; in a dry run only says what would
    /// change. Runs inside the caller's transaction.
    private func apply(_ target: ContactState, to uid: String, origin: HistoryOrigin, dryRun: Bool) throws
        -> RestoreChange?
    {
        let existing = try storedRow(uid: uid)
        switch target {
        case .absent:
            guard let existing, !existing.deleted else { return nil }
            if !dryRun { try tombstone(existing, origin: origin, at: try stamp()) }
            return RestoreChange(uid: uid, displayName: existing.displayName, action: .deleted)
        case .live(let text, _):
            let live = existing.flatMap { $0.deleted ? nil : $0 }
            if let live, try hasText(live, text) { return nil }
            let wasLive = live != nil
            // The hash worked out now: a history row may hold one of an older reading (`ContactStore+Rehash.swift`).
            // A version no reader understands comes back as it was stored, opaque (as a sync stores it).
            let card = Card.stored(text, uid: uid)
            let hash = card.contentHash
            if wasLive, existing?.hash == hash { return nil }
            if !dryRun {
                // A change made on the box: the version comes back dated now, so that it wins as the newest edit.
                let time = try stamp()
                let stamped = revised(card, at: time)
                try write(
                    stamped, uid: uid, text: stamped.serializedText(), hash: hash, over: existing, origin: origin,
                    at: time)
            }
            return RestoreChange(uid: uid, displayName: card.displayName, action: wasLive ? .reverted : .revived)
        }
    }
}

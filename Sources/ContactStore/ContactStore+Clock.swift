import SQLite
import SystemSupport
import VCard

// A box without a clock (issue 36): a Raspberry Pi starts on the last time it saved, hours or years behind, until
// the network time sets it. What the store dates meanwhile is kept as a stretch (`clock_unset`), put right when the
// clock is set in the same boot, and otherwise known to be unsure: no conflict is decided by it, and where a time is
// shown it says so. The order of changes never depends on the clock: it is the change sequence's.
extension ContactStore {
    /// How far a change's time can be believed.
    public enum TimeTrust: Sendable, Equatable {
        case trusted
        /// Dated by this boot's clock before it was set: put right at the store's first write once it is.
        case waiting
        /// Dated by the clock of a boot that ended before it was set: never known.
        case unsure
    }

    /// The time to record a write with, first noting the clock's state: a stretch opened while it is not set,
    /// this boot's stretches put right once it is. Called by every write before it takes a change sequence number
    /// or adds a history row or a run, inside its transaction.
    func stamp() throws -> Int64 {
        try settleClock()
        return now()
    }

    /// `card` as a change made on the box at `time` (a `stamp()`): with that time as its `REV`, or, while the clock
    /// is not set, with no `REV` at all.
    func revised(_ card: Card, at time: Int64) -> Card {
        clockStatus().synchronized ? card.stampingRevision(milliseconds: time) : card.removingRevision()
    }

    /// Puts right now what this boot dated before its clock was set, when it now is, as the store's next write
    /// would (a pass's first write, before anything is decided by those times). Returns the number of stretches put
    /// right.
    @discardableResult
    public func settleClock() throws -> Int {
        let status = clockStatus()
        // Set, with nothing of this boot left to put right: nothing to ask of the store until that changes (no
        // other writer can open a stretch while the clock is set).
        if status.synchronized, clockSettled { return 0 }
        // In a transaction of its own when the write has none: a correction is whole or not made.
        let noted = try db.transaction { try noteClock(status) }
        // Only when it wrote nothing: a write of it the caller's transaction rolls back is made again next time.
        clockSettled = status.synchronized && !noted.wrote
        return noted.corrected
    }

    /// How far the times of changes after `seq` can be believed, from the stretches not put right.
    public func timeTrust(ofChange seq: Int64) throws -> TimeTrust {
        try trust(column: "seq", of: seq)
    }

    /// The same for a history row.
    public func timeTrust(ofHistory id: Int64) throws -> TimeTrust {
        try trust(column: "history", of: id)
    }

    /// The same for a run.
    public func timeTrust(ofRun id: Int64) throws -> TimeTrust {
        try trust(column: "runs", of: id)
    }

    /// Whether the clock is set now, as the store sees it.
    public var clockIsSet: Bool { clockStatus().synchronized }

    private func trust(column: String, of id: Int64) throws -> TimeTrust {
        let status = clockStatus()
        guard
            let boot = try db.scalarString(
                """
                SELECT boot FROM clock_unset WHERE corrected IS NULL AND \(column)_after < ?1
                AND (\(column)_to IS NULL OR \(column)_to >= ?1) ORDER BY id DESC LIMIT 1
                """, id)
        else { return .trusted }
        return boot == status.boot ? .waiting : .unsure
    }

    /// Notes `status` in `clock_unset`; returns the stretches put right, and whether it wrote anything.
    private func noteClock(_ status: ClockStatus) throws -> (corrected: Int, wrote: Bool) {
        let open = try db.queryFirst("SELECT id, boot, boot_start FROM clock_unset WHERE seq_to IS NULL") {
            (id: try $0.int64(0), boot: try $0.string(1), bootStart: try $0.int64(2))
        }
        // The open stretch goes on while the clock stays unset in its boot, at its reading of the boot's start.
        let goesOn = open.map { $0.boot == status.boot && abs($0.bootStart - status.bootStart) <= 1000 } ?? false
        if let open, !goesOn || status.synchronized {
            // Ended: by another boot, by the clock being set, or set by hand without the network saying so.
            try db.run(
                """
                UPDATE clock_unset SET seq_to = (SELECT value FROM sequence WHERE id = 1),
                history_to = (SELECT coalesce(max(id), 0) FROM history),
                runs_to = (SELECT coalesce(max(id), 0) FROM sync_runs) WHERE id = ?
                """, open.id)
        }
        guard status.synchronized else {
            if !goesOn {
                try db.run(
                    """
                    INSERT INTO clock_unset (boot, boot_start, seq_after, history_after, runs_after)
                    SELECT ?, ?, (SELECT value FROM sequence WHERE id = 1),
                    (SELECT coalesce(max(id), 0) FROM history), (SELECT coalesce(max(id), 0) FROM sync_runs)
                    """, status.boot, status.bootStart)
            }
            return (0, open == nil || !goesOn)
        }
        let stretches = try db.query(
            """
            SELECT id, boot_start, seq_after, seq_to, history_after, history_to, runs_after, runs_to
            FROM clock_unset WHERE corrected IS NULL AND boot = ? ORDER BY id LIMIT 100
            """, status.boot
        ) { row in
            (id: try row.int64(0), bootStart: try row.int64(1), ranges: try (2..<8).map { try row.optionalInt64($0) })
        }
        for stretch in stretches {
            let shift = status.bootStart - stretch.bootStart
            let r = stretch.ranges
            // A chunk of rows a statement: a first download dated by an unset clock is thousands of contacts.
            for (table, key, after, to) in [
                ("contacts", "change_seq", r[0] ?? 0, r[1]), ("history", "id", r[2] ?? 0, r[3]),
            ] {
                let time = table == "contacts" ? "changed_at" : "recorded_at"
                var cursor = after
                while let last = try db.scalarInt64(
                    """
                    SELECT max(\(key)) FROM (SELECT \(key) FROM \(table) WHERE \(key) > ?1 AND \(key) <= ?2
                    ORDER BY \(key) LIMIT \(Self.chunkLimit))
                    """, cursor, to ?? Int64.max)
                {
                    try db.run(
                        "UPDATE \(table) SET \(time) = \(time) + ?1 WHERE \(key) > ?2 AND \(key) <= ?3", shift,
                        cursor, last)
                    cursor = last
                }
            }
            try db.run(
                """
                UPDATE sync_runs SET started_at = started_at + ?1, finished_at = finished_at + ?1
                WHERE id > ?2 AND id <= ?3
                """, shift, r[4] ?? 0, r[5] ?? Int64.max)
            try db.run("UPDATE clock_unset SET corrected = ? WHERE id = ?", shift, stretch.id)
        }
        return (stretches.count, open != nil || !stretches.isEmpty)
    }
}

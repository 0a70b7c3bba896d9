/// The restore points and the undo on the page: each run that changed the store, with an "Undo this sync" form, and
/// the undo asked for, step by step. The forms post to `/api/undo/preview`, `/api/undo` and `/api/undo/cancel`;
/// the script does the same with `fetch` and then shows the answer in `#undo`. Nothing here can change a contact:
/// after the page's confirmation the box waits for a long press of its button.
///
/// Hooks: `#runs` holding one `li.run.kind-<kind>` per restore point (`data-run`) with `.run-what`, `time`,
/// `.run-store`, `.run-remote` and `form.undo-form` (its `button.undo-run`); `#undo` (hidden until an undo is asked
/// for, class `undo-<phase>`, `data-phase`, `data-run`) with `#undo-text`, `#undo-contacts`, `#undo-confirm-form`
/// and its `#undo-confirm`, `#undo-cancel-form` and its `#undo-cancel`. While the store is damaged, `#recover`
/// (`data-copy`: the Unix seconds of the copy offered, empty when none is good) with `#recover-text` and
/// `#recover-form` (posts to `/api/recover`) and its `#recover-now`; the recover it arms shows in `#undo` as an undo.
extension StatusPage {
    static func restorePoints(_ snapshot: StatusSnapshot, now: Int64, into w: inout ByteWriter) {
        w.raw("<section>\n<h2>Restore points</h2>\n<p id=\"undo-result\" role=\"alert\"></p>\n")
        recover(snapshot, into: &w)
        undo(snapshot.undo, into: &w)
        w.raw("<ol id=\"runs\">\n")
        for run in snapshot.runs { self.run(run, now: now, into: &w) }
        if snapshot.runs.isEmpty { w.raw("<li class=\"empty\">No changes to the contacts yet.</li>\n") }
        w.raw("</ol>\n</section>\n")
    }

    private static func run(_ run: StatusSnapshot.Run, now: Int64, into w: inout ByteWriter) {
        w.raw("<li class=\"run kind-")
        w.html(run.kind)
        w.raw("\" data-run=\"")
        w.decimal(run.id)
        w.raw("\"><div class=\"run-head\"><span class=\"run-what\">")
        w.html(runTitle(run))
        w.raw("</span> ")
        time(run.startedAt, id: nil, empty: "", now: now, into: &w)
        w.raw("</div>\n<p class=\"run-store\">")
        w.html(storeCounts(run))
        w.raw("</p>\n")
        if let text = remoteCounts(run) {
            w.raw("<p class=\"run-remote\">")
            w.html(text)
            w.raw("</p>\n")
        }
        w.raw("<form class=\"undo-form\" method=\"post\" action=\"/api/undo/preview?run=")
        w.decimal(run.id)
        w.raw("\"><button class=\"undo-run\" type=\"submit\" data-run=\"")
        w.decimal(run.id)
        w.raw("\">")
        w.html(undoLabel(run))
        w.raw("</button></form></li>\n")
    }

    /// The offer to recover a damaged store: its button while no change waits for the button or runs.
    private static func recover(_ snapshot: StatusSnapshot, into w: inout ByteWriter) {
        let copy = snapshot.damage?.copy
        w.raw("<div id=\"recover\" class=\"recover\" data-copy=\"")
        if let copy { w.decimal(copy.madeAt) }
        w.raw("\"")
        if snapshot.damage == nil { w.raw(" hidden") }
        w.raw("><p id=\"recover-text\">")
        w.html(snapshot.damage.map(recoverOffer) ?? "")
        w.raw("</p>\n<form id=\"recover-form\" method=\"post\" action=\"/api/recover\"")
        let busy = snapshot.undo.map { $0.phase == .armed || $0.phase == .confirmed } ?? false
        if copy == nil || busy { w.raw(" hidden") }
        w.raw("><button id=\"recover-now\" type=\"submit\">Recover from the safety copy of ")
        time(copy?.madeAt, id: nil, empty: "", now: nil, into: &w)
        w.raw("</button></form>\n</div>\n")
    }

    /// What `#recover-text` says of the damage; the script has the same words (`recoverOffer`).
    static func recoverOffer(_ damage: StatusSnapshot.Damage) -> String {
        damage.copy == nil
            ? "The store is damaged, and no safety copy passes the check: there is none to recover from, and nothing"
                + " changed."
            : "The store is damaged. Recovering puts its newest good safety copy in its place (the damaged store is"
                + " kept), confirmed by a long press of the box's button; the sync after it brings back what changed"
                + " on the address books since the copy."
    }

    private static func undo(_ undo: StatusSnapshot.Undo?, into w: inout ByteWriter) {
        w.raw("<div id=\"undo\" class=\"undo undo-")
        w.html(undo?.phase.rawValue ?? "none")
        w.raw("\" role=\"status\" data-phase=\"")
        w.html(undo?.phase.rawValue ?? "")
        w.raw("\" data-run=\"")
        if let undo { w.decimal(undo.run) }
        w.raw("\"")
        if undo == nil { w.raw(" hidden") }
        w.raw("><p id=\"undo-text\">")
        w.html(undo.map(undoText) ?? "")
        w.raw("</p>\n<ul id=\"undo-contacts\">")
        for contact in undo?.contacts ?? [] {
            w.raw("<li>")
            w.html(contact.name)
            w.raw(" <span class=\"action\">")
            w.html(actionLabel(contact.action))
            w.raw("</span></li>")
        }
        let run = undo?.run ?? 0
        w.raw("</ul>\n<form id=\"undo-confirm-form\" method=\"post\" action=\"/api/undo?run=")
        w.decimal(run)
        w.raw("\"")
        if undo?.phase != .previewed { w.raw(" hidden") }
        w.raw("><button id=\"undo-confirm\" type=\"submit\">Undo it</button></form>\n")
        w.raw("<form id=\"undo-cancel-form\" method=\"post\" action=\"/api/undo/cancel\"")
        let cancellable: [StatusSnapshot.Undo.Phase] = [.checking, .previewed, .armed]
        if !cancellable.contains(undo?.phase ?? .done) { w.raw(" hidden") }
        w.raw("><button id=\"undo-cancel\" class=\"secondary\" type=\"submit\">Cancel</button></form>\n</div>\n")
    }

    /// "Sync with icloud", "Import", "Undo (undo of run 12)". The script has the same words.
    static func runTitle(_ run: StatusSnapshot.Run) -> String {
        let title =
            run.kind == "sync"
            ? "Sync with " + (run.remote ?? "a removed remote")
            : (run.kind.first.map { $0.uppercased() + run.kind.dropFirst() } ?? run.kind)
        return run.note.map { title + " (" + $0 + ")" } ?? title
    }

    static func undoLabel(_ run: StatusSnapshot.Run) -> String {
        "Undo this " + run.kind
    }

    /// The store's side: "Contacts: 2 created · 1 updated", or "Contacts: none changed".
    static func storeCounts(_ run: StatusSnapshot.Run) -> String {
        "Contacts: " + countList([(run.created, "created"), (run.updated, "updated"), (run.deleted, "deleted")])
    }

    /// The remote's side of a sync: "icloud: 1 sent · 2 received"; nil for a local operation.
    static func remoteCounts(_ run: StatusSnapshot.Run) -> String? {
        guard let counts = run.remoteCounts else { return nil }
        return (run.remote ?? "Remote") + ": "
            + countList([
                (counts.uploaded, "sent"), (counts.downloaded, "received"), (counts.updated, "updated"),
                (counts.deleted, "deleted"),
            ])
    }

    private static func countList(_ counts: [(Int, String)]) -> String {
        let parts = counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "none changed" : parts.joined(separator: " \u{B7} ")
    }

    /// What the undo would do or did: "3 back, 2 put back, 1 deleted, 1 left alone (changed since)".
    static func undoCounts(_ undo: StatusSnapshot.Undo) -> String {
        var parts = [
            (undo.revived, "brought back"), (undo.reverted, "put back"), (undo.deleted, "deleted"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if parts.isEmpty { parts = ["no contact changed"] }
        if undo.skipped > 0 { parts.append("\(undo.skipped) left alone (changed since)") }
        return parts.joined(separator: ", ")
    }

    /// One line per step; the script has the same words (`undoText`).
    static func undoText(_ undo: StatusSnapshot.Undo) -> String {
        if let who = undo.restore { return restoreText(undo, who: who) }
        if let recover = undo.recover { return recoverText(undo, recover) }
        let run = "run \(undo.run)"
        switch undo.phase {
        case .checking: return "Checking what undoing \(run) would change\u{2026}"
        case .previewed: return "Undoing \(run) would change the contacts: \(undoCounts(undo)). Undo it?"
        case .armed:
            return "To undo \(run), hold the button on the box for 3 seconds, until all lights are on, then let go. "
                + "A short press cancels; unconfirmed, it lapses by itself. It would change: \(undoCounts(undo))."
        case .confirmed: return "Undoing \(run)\u{2026}"
        case .done:
            return "Run \(undo.run) undone: \(undoCounts(undo))"
                + (undo.undoRun.map { ". This undo is run \($0), and can be undone too." } ?? ".")
        case .failed: return "The undo of \(run) failed: \(undo.message ?? "see the events")."
        case .cancelled: return "The undo of \(run) was cancelled; nothing changed."
        case .expired: return "The undo of \(run) was not confirmed at the box in time; nothing changed."
        }
    }

    /// A restore from a contact's page, waiting for the button or done; the script has the same words
    /// (`restoreText`).
    static func restoreText(_ undo: StatusSnapshot.Undo, who: String) -> String {
        switch undo.phase {
        case .armed:
            return "To restore \(who), hold the button on the box for 3 seconds, until all lights are on, then let go. "
                + "A short press cancels; unconfirmed, it lapses by itself."
        case .confirmed: return "Restoring \(who)\u{2026}"
        case .done:
            return "Restored \(who)" + (undo.undoRun.map { ". This restore is run \($0), and can be undone." } ?? ".")
        case .failed: return "The restore of \(who) failed: \(undo.message ?? "see the events")."
        case .cancelled: return "The restore of \(who) was cancelled; nothing changed."
        case .expired: return "The restore of \(who) was not confirmed at the box in time; nothing changed."
        case .checking, .previewed: return undo.phase.rawValue
        }
    }

    /// The recover of a damaged store, waiting for the button or done; the script has the same words
    /// (`recoverText`), with the time in the browser's zone.
    static func recoverText(_ undo: StatusSnapshot.Undo, _ recover: StatusSnapshot.Undo.Recover) -> String {
        let copy = "the copy of " + UnixTime.utcText(recover.copyMadeAt)
        switch undo.phase {
        case .armed:
            return "To recover the store from \(copy), hold the button on the box for 3 seconds, until all lights are"
                + " on, then let go. A short press cancels; unconfirmed, it lapses by itself."
        case .confirmed: return "Recovering the store from \(copy)\u{2026}"
        case .done:
            let contacts = recover.contacts ?? 0
            return "Recovered from \(copy): \(contacts) contact\(contacts == 1 ? "" : "s"); the damaged store is kept"
                + " as \(recover.keptAs ?? "a file beside it"); syncing to bring back changes since."
        case .failed: return "The recover from \(copy) failed: \(undo.message ?? "see the events")."
        case .cancelled: return "The recover of the store was cancelled; nothing changed."
        case .expired: return "The recover of the store was not confirmed at the box in time; nothing changed."
        case .checking, .previewed: return undo.phase.rawValue
        }
    }

    static func actionLabel(_ action: String) -> String {
        switch action {
        case "revived": "brought back"
        case "reverted": "put back"
        case "deleted": "deleted"
        case "skipped-changed-since": "left alone: changed since"
        default: action
        }
    }
}

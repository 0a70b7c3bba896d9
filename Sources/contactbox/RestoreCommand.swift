import ArgumentParser
import CLISupport
import ContactStore
import SafeText
import SystemSupport

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back one contact's earlier version, or every contact as it was at a time.",
        discussion: """
            restore UID: a deleted contact comes back as it was when it was deleted.
            restore UID --version N: the contact becomes version N of `contactbox history UID`.
            restore UID --as-of TIME: the contact as it was then (deleted if it did not exist then).
            restore --as-of TIME [--dry-run]: every contact as it was then: those created since are deleted, \
            those deleted since come back, those edited since go back. --dry-run lists what would change.

            TIME is an ISO 8601 date and time, 2026-11-23T16:05 or 2026-11-23T16:05:30 (local time unless it ends \
            in Z or an offset such as +01:00), or a span back from now: 90m, 2h, 3d, 1w.

            A restore is a run of its own, recorded in the history: `contactbox undo RUN` takes it back. The next \
            sync carries it to every remote like a local edit; a sync that would then delete more than the \
            remote's max_delete_share holds the deletions (exit 10) until `contactbox sync --confirm-deletions` or \
            a long press of the button confirms them. History older than the retention is gone: a time before it \
            gives the oldest state still known, with a warning on stderr that says up to when history was pruned.

            \(Exit.help("restore"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The contact's UID; without it, --as-of restores every contact.")
    var uid: String?

    @Option(help: ArgumentHelp("A version number from `contactbox history UID`.", valueName: "N"))
    var version: Int64?

    @Option(name: .customLong("as-of"), help: ArgumentHelp("The time to go back to.", valueName: "time"))
    var asOf: String?

    @Flag(help: "Only list what would change.")
    var dryRun = false

    func validate() throws {
        if version != nil, asOf != nil { throw ValidationError("give --version or --as-of, not both") }
        if uid == nil, asOf == nil { throw ValidationError("give a UID, or --as-of TIME to restore every contact") }
        if uid == nil, version != nil { throw ValidationError("--version needs the contact's UID") }
        if let asOf { _ = try Self.time(asOf) }
    }

    func run() throws {
        let contacts = try store.open()
        do {
            if let uid {
                try restoreOne(uid, in: contacts)
            } else if let asOf {
                let time = try Self.time(asOf)
                Self.warnIfPruned(after: time, in: contacts)
                let summary = try contacts.restore(
                    asOf: time, note: "as of \(PointInTime.localText(time))", dryRun: dryRun
                ) { print(Self.line($0)) }
                Terminal.note(
                    Self.summaryText(summary, what: "Restore as of \(PointInTime.localText(time))", dryRun: dryRun))
            }
        } catch let exit as ExitCode {
            throw exit
        } catch let error as ValidationError {
            throw error
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
    }

    private func restoreOne(_ uid: String, in contacts: ContactStore) throws {
        guard try contacts.contact(uid: uid) != nil || !contacts.history(uid: uid, limit: 1).isEmpty else {
            Terminal.error("no contact and no history with UID \(printable(uid))")
            throw Exit.findings
        }
        let target: ContactState
        let what: String
        if let version {
            guard let entry = try contacts.historyEntry(id: version), entry.uid == uid else {
                Terminal.error("contact \(printable(uid)) has no version \(version) (see `contactbox history UID`)")
                throw Exit.findings
            }
            guard entry.kind != .created else {
                Terminal.error(
                    "#\(version) of \(printable(uid)) records its creation, not a version: the version it created is"
                        + " the one before the next change (see `contactbox history UID`)")
                throw Exit.findings
            }
            target = .live(text: entry.text, hash: entry.hash)
            what = "version \(version)"
        } else if let asOf {
            let time = try Self.time(asOf)
            Self.warnIfPruned(after: time, in: contacts)
            target = try contacts.state(uid: uid, at: time)
            what = "as of \(PointInTime.localText(time))"
        } else {
            guard let contact = try contacts.contact(uid: uid) else {
                Terminal.error("no contact with UID \(printable(uid))")
                throw Exit.findings
            }
            guard contact.deleted else {
                Terminal.error(
                    "contact \(printable(uid)) is not deleted: give --version N (see `contactbox history UID`) or"
                        + " --as-of TIME")
                throw Exit.findings
            }
            guard let last = try contacts.history(uid: uid, limit: 10).first(where: { $0.kind == .deleted }) else {
                Terminal.error(
                    "contact \(printable(uid)) was deleted, but its last version is no longer in the history")
                throw Exit.findings
            }
            target = .live(text: last.text, hash: last.hash)
            what = "its last version"
        }
        let runID = dryRun ? nil : try contacts.beginOperation(.restore, note: "\(uid) \(what)")
        let change = try contacts.restore(
            uid: uid, to: target, reason: "restore \(what)", runID: runID, dryRun: dryRun)
        if let runID { try contacts.finishOperation(id: runID) }
        var summary = RestoreSummary(runID: runID)
        if let change {
            print(Self.line(change))
            switch change.action {
            case .revived: summary.revived = 1
            case .reverted: summary.reverted = 1
            case .deleted: summary.deleted = 1
            case .skippedChangedSince: summary.skipped = 1
            }
        }
        Terminal.note(Self.summaryText(summary, what: "Restore of \(printable(uid)) to \(what)", dryRun: dryRun))
    }

    static func time(_ text: String) throws -> Int64 {
        do {
            return try PointInTime.parse(text, now: wallClockMillis())
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Warns on stderr when retention has removed versions after `time`: the state "as of" it is then built from an
    /// incomplete history and may not be what the store held. Exit codes are unchanged.
    static func warnIfPruned(after time: Int64, in contacts: ContactStore) {
        guard let prunedBefore = try? contacts.historyPrunedBefore(), time < prunedBefore else { return }
        Terminal.warning(
            "history up to \(PointInTime.localText(prunedBefore)) has been pruned (the [history] retention), so this"
                + " may not be the state at \(PointInTime.localText(time))")
    }

    /// `revived  Ann  uid-1`: one changed contact, its name and UID made safe to show.
    static func line(_ change: RestoreChange) -> String {
        let action = change.action == .skippedChangedSince ? "skipped (changed since)" : change.action.rawValue
        return action + "  " + printable(change.displayName) + "  " + printable(change.uid)
    }

    static func summaryText(_ summary: RestoreSummary, what: String, dryRun: Bool) -> String {
        var text =
            what + (dryRun ? " would change " : ": ")
            + "\(summary.revived) revived, \(summary.reverted) reverted, \(summary.deleted) deleted"
        if summary.skipped > 0 { text += ", \(summary.skipped) skipped (changed since the run)" }
        if let runID = summary.runID, summary.changed > 0 {
            text +=
                " (run \(runID); `contactbox undo \(runID)` takes it back). The next sync carries it to the remotes."
        } else if dryRun {
            text += " (dry run: nothing written)."
        } else {
            text += "."
        }
        return text
    }
}

import ArgumentParser
import CLISupport
import ContactStore
import SafeText
import SystemSupport

struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the recent sync runs and local operations: the restore points for `contactbox undo`.",
        discussion: """
            One line per run, newest first: its number, when it started, what it was (a sync with one remote, or \
            an import, delete, edit, restore or undo on the box), how it ended, what it did to the store (contacts \
            created, updated, deleted) and, for a sync, its counts on the remote's side. `contactbox undo N` takes \
            a run back.

            \(Exit.help("runs"))
            """)

    @OptionGroup var store: StoreOptions

    @OptionGroup var listing: ListingOptions

    func run() throws {
        let contacts = try store.openForReading()
        var text = HistoryText(store: contacts)
        do {
            func page(before: Int64?, size: Int) throws -> [SyncRun] {
                try contacts.recentSyncRuns(before: before, limit: size)
            }
            try listing.forEach(page, id: \.id) { run in
                let remote = try run.remoteID.flatMap { try text.remoteName($0) }
                let store = try contacts.historyCounts(runID: run.id)
                let unsure = try contacts.timeTrust(ofRun: run.id) != .trusted
                print(
                    listing.json
                        ? Self.json(run, remote: remote, store: store, unsure: unsure)
                        : Self.line(run, remote: remote, store: store, unsure: unsure))
            }
        } catch {
            Terminal.error("cannot read the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
    }

    static func line(_ run: SyncRun, remote: String?, store: [HistoryKind: Int], unsure: Bool = false) -> String {
        var parts = [
            "run \(run.id)", HistoryText.time(run.startedAt, unsure: unsure),
            run.kind == .sync ? "sync " + printable(remote ?? "(removed remote)") : run.kind.rawValue,
            run.outcome?.rawValue ?? "running",
            "store: \(store[.created] ?? 0) created, \(store[.updated] ?? 0) updated, \(store[.deleted] ?? 0) deleted",
        ]
        if run.kind == .sync {
            let counts = run.counts
            parts.append(
                "remote: \(counts.uploaded) uploaded, \(counts.downloaded) downloaded, \(counts.updated) updated, "
                    + "\(counts.deleted) deleted, \(counts.conflicts) conflicts, \(counts.errors) errors")
        }
        if let note = run.note { parts.append(printable(note)) }
        if let message = run.message { parts.append(printable(message)) }
        return parts.joined(separator: "  ")
    }

    static func json(_ run: SyncRun, remote: String?, store: [HistoryKind: Int], unsure: Bool = false) -> String {
        let counts = run.counts
        let storeJSON = JSONObject().number("created", store[.created] ?? 0).number("updated", store[.updated] ?? 0)
            .number("deleted", store[.deleted] ?? 0).number("archived", store[.archived] ?? 0).text
        var object = JSONObject().number("id", run.id).string("kind", run.kind.rawValue).string("remote", remote)
            .string("started", PointInTime.utcText(run.startedAt)).number("started_ms", run.startedAt)
            .flag("time_unsure", unsure)
            .number("finished_ms", run.finishedAt).string("outcome", run.outcome?.rawValue).raw("store", storeJSON)
        if run.kind == .sync {
            object = object.raw(
                "remote_counts",
                JSONObject().number("uploaded", counts.uploaded).number("downloaded", counts.downloaded)
                    .number("updated", counts.updated).number("deleted", counts.deleted)
                    .number("conflicts", counts.conflicts).number("errors", counts.errors).text)
        }
        return object.string("note", run.note).string("message", run.message).text
    }
}

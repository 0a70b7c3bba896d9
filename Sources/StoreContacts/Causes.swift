import ContactStore

/// What made a history row, in words: "sync with icloud", "import", "the command line (edit)", "undo of run 12",
/// or who on the page or the API ("the page", "API token kitchen") for a write of this backend. Runs and remote
/// names are looked up once per page.
struct Causes {
    let store: ContactStore
    private var runs: [Int64: SyncRun?] = [:]
    private var remotes: [Int64: String?] = [:]

    init(store: ContactStore) {
        self.store = store
    }

    mutating func cause(of entry: HistoryEntry) throws -> String {
        guard let runID = entry.runID, let run = try run(runID) else {
            if let remoteID = entry.remoteID, let name = try remoteName(remoteID) { return "sync with \(name)" }
            if entry.reason.hasPrefix("undo of run ") { return entry.reason }
            return entry.runID.map { "run \($0)" } ?? "a change on the box"
        }
        switch run.kind {
        case .sync:
            let name = try (run.remoteID ?? entry.remoteID).flatMap { try remoteName($0) }
            return name.map { "sync with \($0)" } ?? "a sync"
        case .import: return "import"
        case .undo: return run.note ?? "undo of run"
        case .edit, .delete, .restore:
            if let writer = WriteNote.writer(note: run.note, reason: entry.reason) { return writer }
            return "the command line (\(run.kind.rawValue))"
        }
    }

    private mutating func run(_ id: Int64) throws -> SyncRun? {
        if let known = runs[id] { return known }
        let run = try store.syncRun(id: id)
        runs[id] = run
        return run
    }

    private mutating func remoteName(_ id: Int64) throws -> String? {
        if let known = remotes[id] { return known }
        let name = try store.remote(id: id)?.name
        remotes[id] = name
        return name
    }
}

/// How a write of this backend names its writer: the run's note is "WRITER: what" and each history row's reason
/// "VERB by WRITER" (`edited`, `deleted`, `restored`). A row is the backend's when both say the same writer, which
/// the command line's notes (a UID) and reasons ("edited on the command line") never do.
enum WriteNote {
    static func note(by writer: String, _ what: String) -> String { "\(writer): \(what)" }

    static func reason(_ verb: String, by writer: String) -> String { "\(verb) by \(writer)" }

    static let verbs = ["edited", "deleted", "restored"]

    /// The writer of a backend's write; nil for a row written otherwise.
    static func writer(note: String?, reason: String) -> String? {
        guard let note else { return nil }
        for verb in verbs where reason.hasPrefix(verb + " by ") {
            let writer = String(reason.dropFirst(verb.count + 4))
            if !writer.isEmpty, note.hasPrefix(writer + ": ") { return writer }
        }
        return nil
    }
}

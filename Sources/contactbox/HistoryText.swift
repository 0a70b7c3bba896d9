import ContactStore
import SafeText
import SystemSupport
import VCard

/// How history rows and runs read for people and scripts: what made a change (the run, its remote), and a
/// one-line summary (the name, which fields changed). Stranger-written text goes through `printable` when shown.
struct HistoryText {
    let store: ContactStore
    /// Runs and remote names already looked up: a page of rows names few of them.
    private var runs: [Int64: SyncRun] = [:]
    private var remoteNames: [Int64: String] = [:]

    init(store: ContactStore) {
        self.store = store
    }

    /// One row, described: what changed it, and how.
    struct Described {
        var entry: HistoryEntry
        var source: String
        var run: SyncRun?
        var remote: String?
        var name: String
        /// Dated by a clock not set (`ContactStore.TimeTrust`): the time is shown marked.
        var timeUnsure = false
        var fields: [String]

        var summary: String {
            switch entry.kind {
            case .created: "created " + name
            case .deleted: "deleted " + name
            case .archived: "kept aside a version of " + name + " (\(entry.reason))"
            case .updated:
                name + ": " + (fields.isEmpty ? "no field changed" : fields.joined(separator: ", ") + " changed")
                    + (entry.reason.hasPrefix("conflict-lost:") ? " (the local version lost a conflict)" : "")
            }
        }

        var textLine: String {
            "#\(entry.id)  \(HistoryText.time(entry.recordedAt, unsure: timeUnsure))  \(entry.kind.rawValue)  "
                + printable(source) + "  " + printable(summary)
        }

        var json: String {
            JSONObject()
                .number("id", entry.id).string("uid", entry.uid).string("time", PointInTime.utcText(entry.recordedAt))
                .number("time_ms", entry.recordedAt).flag("time_unsure", timeUnsure).string("kind", entry.kind.rawValue)
                .string("reason", entry.reason)
                .number("run", entry.runID).string("run_kind", run?.kind.rawValue).string("remote", remote)
                .string("name", name).strings("fields", fields).text
        }
    }

    mutating func describe(_ entry: HistoryEntry) throws -> Described {
        let run = try entry.runID.flatMap { try self.run($0) }
        let remote = try (run?.remoteID ?? entry.remoteID).flatMap { try remoteName($0) }
        let before = entry.kind == .created ? nil : Self.card(entry.vcard)
        var after: Card?
        if entry.kind != .archived, case .live(let text, _) = try store.state(after: entry) {
            after = Self.card(text.string)
        }
        let name = (after ?? before)?.displayName ?? Card.noName
        let fields = entry.kind == .updated ? Self.changedFields(from: before, to: after) : []
        return Described(
            entry: entry, source: Self.source(run: run, runID: entry.runID, remote: remote), run: run, remote: remote,
            name: name, timeUnsure: try store.timeTrust(ofHistory: entry.id) != .trusted, fields: fields)
    }

    /// A time for people; one the box dated before its clock was set says so (issue 36).
    static func time(_ millis: Int64, unsure: Bool) -> String {
        PointInTime.localText(millis) + (unsure ? " (clock not set)" : "")
    }

    mutating func remoteName(_ id: Int64) throws -> String? {
        if let name = remoteNames[id] { return name }
        let name = try store.remote(id: id)?.name
        remoteNames[id] = name
        return name
    }

    private mutating func run(_ id: Int64) throws -> SyncRun? {
        if let run = runs[id] { return run }
        let run = try store.syncRun(id: id)
        runs[id] = run
        return run
    }

    /// `sync run 12 with cloud`, `edit (run 13)`; for rows older than schema 4, the remote or `local`.
    static func source(run: SyncRun?, runID: Int64?, remote: String?) -> String {
        guard let run else {
            if let runID { return "run \(runID)" }
            return remote.map { "sync with " + $0 } ?? "local"
        }
        switch run.kind {
        case .sync: return "sync run \(run.id)" + (remote.map { " with " + $0 } ?? "")
        case .import: return "import (run \(run.id))"
        case .delete: return "delete on the command line (run \(run.id))"
        case .edit: return "edit on the command line (run \(run.id))"
        case .restore: return "restore (run \(run.id))"
        case .undo: return "undo (run \(run.id))"
        }
    }

    /// The property names whose lines differ between two versions, in the order they first appear; what every
    /// version carries anyway (VERSION, PRODID, REV, UID) left out.
    static func changedFields(from before: Card?, to after: Card?) -> [String] {
        func lines(_ card: Card?) -> [String: [String]] {
            var byName: [String: [String]] = [:]
            for property in card?.properties ?? [] {
                let name = property.name.uppercased()
                guard !["VERSION", "PRODID", "REV", "UID", "BEGIN", "END"].contains(name) else { continue }
                let parameters = property.parameters.map {
                    $0.name.uppercased() + "=" + $0.values.joined(separator: ",")
                }
                byName[name, default: []].append(parameters.joined(separator: ";") + ":" + property.value)
            }
            return byName.mapValues { $0.sorted() }
        }
        let old = lines(before)
        let new = lines(after)
        var order: [String] = []
        for property in (before?.properties ?? []) + (after?.properties ?? []) {
            let name = property.name.uppercased()
            if !order.contains(name), old[name] != new[name] { order.append(name) }
        }
        return order
    }

    static func card(_ vcard: String) -> Card? {
        var reader = CardReader(text: vcard)
        guard case .success(let parsed) = reader.next() else { return nil }
        return parsed.card
    }
}

/// A flat JSON object written field by field (no Foundation): strings made safe to show (`printable`), then
/// encoded as RFC 8259 says.
struct JSONObject {
    private(set) var fields: [String] = []

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    func string(_ key: String, _ value: String?) -> JSONObject {
        adding(key, value.map(Self.quoted) ?? "null")
    }

    func number(_ key: String, _ value: Int64?) -> JSONObject {
        adding(key, value.map { "\($0)" } ?? "null")
    }

    func number(_ key: String, _ value: Int) -> JSONObject {
        adding(key, "\(value)")
    }

    /// `"key":true`, and nothing when false.
    func flag(_ key: String, _ value: Bool) -> JSONObject {
        value ? adding(key, "true") : self
    }

    func strings(_ key: String, _ values: [String]) -> JSONObject {
        adding(key, "[" + values.map(Self.quoted).joined(separator: ",") + "]")
    }

    func raw(_ key: String, _ json: String) -> JSONObject {
        adding(key, json)
    }

    private func adding(_ key: String, _ json: String) -> JSONObject {
        var copy = self
        copy.fields.append(Self.quoted(key) + ":" + json)
        return copy
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in printable(text).unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default:
                // printable has escaped every control character already.
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

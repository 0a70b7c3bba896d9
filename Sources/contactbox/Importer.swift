import CLISupport
import ContactStore
import VCard

/// Reads cards from files and stores them in chunks of at most 100, one transaction each, counting what happened.
struct Importer {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    struct Summary: CustomStringConvertible {
        var files = 0
        var imported = 0
        var merged = 0
        var renamed = 0
        var updated = 0
        var repaired = 0
        var skipped = 0

        var description: String {
            var parts = ["imported \(imported)"]
            if merged > 0 { parts.append("merged \(merged) exact duplicate\(merged == 1 ? "" : "s")") }
            if renamed > 0 { parts.append("kept \(renamed) under a fresh UID") }
            if updated > 0 { parts.append("updated \(updated)") }
            if repaired > 0 { parts.append("repaired \(repaired)") }
            parts.append("skipped \(skipped)\(skipped > 0 ? " (reasons above)" : "")")
            let sentence = parts.joined(separator: ", ")
            return sentence.prefix(1).uppercased() + sentence.dropFirst()
                + " from \(files) file\(files == 1 ? "" : "s")"
        }
    }

    /// Repairs and renames are listed up to this many; the summary counts the rest.
    static let noticeLimit = 10

    let store: ContactStore
    let updating: Bool
    /// The import's operation in the journal: its history rows name it, so `contactbox undo` can take it back.
    let runID: Int64?
    private(set) var summary = Summary()
    private var progress: ProgressBar
    private var bytesBefore = 0
    private var notices = 0
    private var chunk: [Card] = []
    private var chunkOrigins: [String] = []

    init(store: ContactStore, totalBytes: Int, updating: Bool, runID: Int64?) {
        self.store = store
        self.runID = runID
        self.updating = updating
        progress = ProgressBar("Importing", total: totalBytes)
    }

    mutating func importFile(_ path: String) throws {
        var reader: CardReader
        do {
            reader = try CardReader(path: path)
        } catch {
            throw Unreadable(description: "\(path): \(error.message)")
        }
        summary.files += 1
        while let result = reader.next() {
            switch result {
            case .success(let parsed):
                if !parsed.repairs.isEmpty {
                    summary.repaired += 1
                    notice("\(path):\(parsed.line): repaired: \(parsed.repairs.joined(separator: "; "))")
                }
                for warning in parsed.warnings where !parsed.repairs.contains(warning) {
                    notice("\(path):\(parsed.line): \(warning)")
                }
                chunk.append(parsed.card)
                chunkOrigins.append("\(path):\(parsed.line)")
                if chunk.count == ContactStore.chunkLimit { try flush() }
            case .failure(let error):
                summary.skipped += 1
                progress.finish()
                Terminal.note("\(path):\(error.line): skipped: \(error.message)")
            }
            progress.update(done: bytesBefore + reader.position, items: summary.imported + chunk.count)
        }
        bytesBefore += reader.position
    }

    /// Stores what is left and clears the progress bar.
    mutating func finish() {
        do { try flush() } catch { Terminal.error("cannot write to the store: \(error)") }
        progress.finish()
        if notices > Self.noticeLimit { Terminal.note("(\(notices - Self.noticeLimit) more notices not shown)") }
    }

    private mutating func flush() throws {
        guard !chunk.isEmpty else { return }
        let outcomes = try store.importChunk(chunk, updating: updating, runID: runID)
        for (outcome, origin) in zip(outcomes, chunkOrigins) {
            switch outcome {
            case .inserted:
                summary.imported += 1
            case .merged:
                summary.merged += 1
            case .updated:
                summary.updated += 1
            case .renamed(let from, let to):
                summary.imported += 1
                summary.renamed += 1
                notice("\(origin): UID \(from) belongs to a different contact; kept this one as \(to)")
            }
        }
        chunk.removeAll(keepingCapacity: true)
        chunkOrigins.removeAll(keepingCapacity: true)
    }

    private mutating func notice(_ message: String) {
        notices += 1
        guard notices <= Self.noticeLimit else { return }
        progress.finish()
        Terminal.note(message)
    }
}

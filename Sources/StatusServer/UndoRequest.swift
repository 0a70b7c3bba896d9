/// What the status page asks of an undo (`POST /api/undo/preview`, `/api/undo`, `/api/undo/cancel`), or of the
/// recover of a damaged store, which waits for the button as an undo does (`/api/recover`). None of them
/// changes a contact: the page can only ask what an undo would change, arm it (the box then waits for a long press
/// of its button) or cancel it. The daemon decides, and its answer shows in the snapshot's `undo`.
public enum UndoRequest: Sendable, Equatable {
    /// Work out what undoing `run` would change (the store's dry run).
    case preview(run: Int64)
    /// The person confirmed on the page: wait for the long press that undoes `run`.
    case arm(run: Int64)
    /// Forget the undo being previewed or armed.
    case cancel
    /// The store is damaged: wait for the long press that puts the safety copy the page offers in its place
    /// (`POST /api/recover`; cancelled as an undo is).
    case recover

    /// The run in a request's query string (`?run=42`): digits only, a positive 64-bit number; nil otherwise.
    static func runNumber(_ text: String?) -> Int64? {
        guard let text, (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let run = Int64(text), run > 0
        else { return nil }
        return run
    }
}

import VCard

/// What a history row records (schema 4, `Docs/architecture.md`, "History").
public enum HistoryKind: String, Sendable, CaseIterable {
    /// The contact was not live before this change: a new UID, or a tombstone revived.
    case created
    /// The live version was replaced; the row holds it.
    case updated
    /// The live version was deleted; the row holds it.
    case deleted
    /// A version that never was the contact: a conflict's loser, an import renamed for a taken UID.
    case archived
}

/// What made a run: a sync with one remote, or an operation on the box itself.
public enum RunKind: String, Sendable, CaseIterable {
    case sync
    case `import`
    case delete
    case edit
    case restore
    case undo
}

/// One UID's state at a point in time: live with this version, or not live (never created, or a tombstone).
public enum ContactState: Sendable, Equatable {
    case absent
    case live(text: CardText, hash: String)

    public static func == (lhs: ContactState, rhs: ContactState) -> Bool {
        switch (lhs, rhs) {
        case (.absent, .absent): true
        case (.live(let left, let leftHash), .live(let right, let rightHash)):
            leftHash == rightHash && left.hasSameBytes(as: right)
        default: false
        }
    }

    public var isLive: Bool {
        if case .live = self { return true }
        return false
    }
}

/// One contact a restore or undo changed (or, in a dry run, would change).
public struct RestoreChange: Sendable, Equatable {
    public enum Action: String, Sendable {
        /// Brought back: it was not live.
        case revived
        /// Put back to an earlier version.
        case reverted
        /// Deleted: it was not live then.
        case deleted
        /// Left alone by an undo: changed again after the run (see `ContactStore.undo(run:)`).
        case skippedChangedSince = "skipped-changed-since"
    }

    public var uid: String
    /// The name of the version the contact has after the change (or, when deleted or skipped, before it).
    public var displayName: String
    public var action: Action

    public init(uid: String, displayName: String, action: Action) {
        self.uid = uid
        self.displayName = displayName
        self.action = action
    }
}

/// What a restore or undo did in all.
public struct RestoreSummary: Sendable, Equatable {
    /// The operation's own run, itself undoable; nil for a dry run.
    public var runID: Int64?
    public var revived = 0
    public var reverted = 0
    public var deleted = 0
    public var skipped = 0

    public init(runID: Int64?) {
        self.runID = runID
    }

    public var changed: Int { revived + reverted + deleted }

    mutating func count(_ action: RestoreChange.Action) {
        switch action {
        case .revived: revived += 1
        case .reverted: reverted += 1
        case .deleted: deleted += 1
        case .skippedChangedSince: skipped += 1
        }
    }
}

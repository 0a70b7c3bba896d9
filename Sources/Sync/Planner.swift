/// How a conflict (both sides changed the same contact differently) is settled, per remote.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// The version with the later `REV` wins. A change made on the box carries its time as `REV`; the local change
    /// time stands in for a missing local `REV`, and the time of the sync (when the box first saw it) for a missing
    /// remote one. A tie goes to the remote, the version the rest of the household sees. A local time the box's clock
    /// could not vouch for is none (`SyncSession.plan`: such a conflict waits for the clock, or the remote wins).
    case newest
    case local
    case remote
}

/// The pure heart of sync (Docs/contributing.md, rule 8): what to do with one contact, from what both sides looked like
/// after the last sync (the base) and what they look like now. No I/O; the executor carries the decision out.
///
/// Docs/architecture.md: changed on one side, copy it over; changed on both, a conflict settled by the policy, the
/// loser kept in history; edited on one side and deleted on the other, the edit wins.
public enum Planner {
    /// What the base says about the item: the content hash both sides had after the last sync.
    public struct Base: Sendable, Equatable {
        public var hash: String
        public init(hash: String) { self.hash = hash }
    }

    public struct Version: Sendable, Equatable {
        public var hash: String
        /// `REV` as written (any ISO 8601 form), if the card has one.
        public var rev: String?
        public init(hash: String, rev: String? = nil) {
            self.hash = hash
            self.rev = rev
        }
    }

    public enum Side: Sendable, Equatable {
        /// The item is there; for the remote, `nil` version means "listed as unchanged since the base".
        case present(Version)
        case unchanged
        /// Deleted, or never there.
        case absent
    }

    public enum Decision: Sendable, Equatable {
        /// Both sides already agree with the base.
        case nothing
        /// Both sides hold the same content: record it as the new base.
        case markSynced
        /// Copy the remote version into the store.
        case download
        /// Copy the local version to the remote (create when there is no remote item, else update).
        case upload
        case deleteLocal
        case deleteRemote
        /// Both sides deleted it: forget the base.
        case forget
        /// Both changed differently; the winner is copied over the loser, which goes to history.
        case conflict(winner: Winner)
    }

    public enum Winner: Sendable, Equatable {
        case local, remote
    }

    /// - Parameters:
    ///   - base: the state after the last sync, nil when this remote never synced the item.
    ///   - local: the store's version; `.absent` for no contact or a tombstone.
    ///   - remote: the remote's version; `.unchanged` when its ETag still equals the base's.
    ///   - localTime: the local change time as `REV`-comparable text, standing in for a missing local `REV`.
    public static func decide(
        base: Base?, local: Side, remote: Side, policy: ConflictPolicy, localTime: String? = nil
    ) -> Decision {
        guard let base else {
            return decideWithoutBase(local: local, remote: remote, policy: policy, localTime: localTime)
        }
        let localChanged = changed(local, from: base)
        let remoteChanged = changed(remote, from: base)
        switch (localChanged, remoteChanged) {
        case (nil, nil):
            // Unchanged on both sides; a remote re-listed with the same content only needs its new ETag recorded.
            if case .present = remote { return .markSynced }
            return .nothing
        case (nil, .some(.absent)):
            return .deleteLocal
        case (nil, .some):
            return .download
        case (.some(.absent), nil):
            return .deleteRemote
        case (.some(.absent), .some(.absent)):
            return .forget
        case (.some(.absent), .some):
            return .download  // edit beats delete
        case (.some, nil):
            return .upload
        case (.some, .some(.absent)):
            return .upload  // edit beats delete
        case (.some(.present(let mine)), .some(.present(let theirs))):
            if mine.hash == theirs.hash { return .markSynced }
            return .conflict(winner: winner(mine, theirs, policy: policy, localTime: localTime))
        case (.some, .some):
            return .nothing  // unreachable: a change is either .present or .absent
        }
    }

    private static func decideWithoutBase(
        local: Side, remote: Side, policy: ConflictPolicy, localTime: String?
    ) -> Decision {
        switch (local, remote) {
        case (.present(let mine), .present(let theirs)):
            if mine.hash == theirs.hash { return .markSynced }
            return .conflict(winner: winner(mine, theirs, policy: policy, localTime: localTime))
        case (.present, _):
            return .upload
        case (_, .present):
            return .download
        default:
            return .nothing
        }
    }

    /// nil when the side equals the base; otherwise the side as it is now (`.absent` for a deletion).
    private static func changed(_ side: Side, from base: Base) -> Side? {
        switch side {
        case .unchanged: nil
        case .present(let version): version.hash == base.hash ? nil : side
        case .absent: .absent
        }
    }

    static func winner(_ mine: Version, _ theirs: Version, policy: ConflictPolicy, localTime: String?) -> Winner {
        switch policy {
        case .local: return .local
        case .remote: return .remote
        case .newest:
            guard let theirTime = theirs.rev.map(comparableTime),
                let myTime = (mine.rev ?? localTime).map(comparableTime)
            else { return .remote }
            return myTime > theirTime ? .local : .remote
        }
    }

    /// `2024-03-01T10:00:00Z`, `20240301T100000Z` and `2024-03-01` compare in time order as their digits,
    /// padded to seconds (all UTC, as REV is in practice).
    static func comparableTime(_ rev: String) -> String {
        let digits = String(rev.filter(\.isASCIIDigit).prefix(14))
        return digits + String(repeating: "0", count: 14 - digits.count)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

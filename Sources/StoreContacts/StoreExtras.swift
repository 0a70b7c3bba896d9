import ContactStore

/// A page of the trash as the store gives it: deletions newest first, and where the next page starts.
struct TrashScan {
    /// The history rows of the deletions that made the current tombstones, newest first.
    var deletions: [HistoryEntry]
    /// The history row to continue before; nil when the history has no older row.
    var next: Int64?
}

/// What the backend asks of the store beyond its reading and writing of contacts: the trash, and which remotes hold
/// a contact. Behind a protocol so that a store with calls of its own for them (indexed, one query a page) takes
/// the place of `StoreExtrasFallback` without the backend changing.
protocol StoreExtras {
    /// The deletions of contacts that are deleted still, newest first, before history row `before` (nil: the
    /// newest), at most `limit`.
    func trash(before: Int64?, limit: Int) throws -> TrashScan
    /// The names of the remotes whose last sync saw `uid` on their side.
    func remoteNames(holding uid: String) throws -> [String]
}

/// `StoreExtras` over the store's public calls of today. The trash walks the whole store's history newest first,
/// a page of `chunkLimit` rows at a time, and keeps the deletions whose contact is a tombstone still, deleted at
/// that moment (a tombstone's `changedAt` is its deletion's time); at most `maxPages` pages a call, so a call stays
/// short where the history holds few deletions among many changes: its page may then be short, or empty with a
/// `next`.
struct StoreExtrasFallback: StoreExtras {
    let store: ContactStore
    static let maxPages = 10

    func trash(before: Int64?, limit: Int) throws -> TrashScan {
        var deletions: [HistoryEntry] = []
        var cursor = before
        for _ in 0..<Self.maxPages {
            let page = try store.latestHistory(before: cursor, limit: ContactStore.chunkLimit)
            for entry in page where entry.kind == .deleted {
                guard let contact = try store.contact(uid: entry.uid), contact.deleted,
                    contact.changedAt == entry.recordedAt
                else { continue }
                deletions.append(entry)
                if deletions.count == limit { return TrashScan(deletions: deletions, next: entry.id) }
            }
            guard page.count == ContactStore.chunkLimit, let last = page.last else {
                return TrashScan(deletions: deletions, next: nil)
            }
            cursor = last.id
        }
        return TrashScan(deletions: deletions, next: cursor)
    }

    func remoteNames(holding uid: String) throws -> [String] {
        try store.remotes().filter { try store.remoteItem(remoteID: $0.id, uid: uid) != nil }.map(\.name)
    }
}

import SQLite
import VCard

/// What a sync run needs beyond plain CRUD: the remote's listing, kept in a scratch database so that a listing of
/// any size is compared with the saved state by SQLite in bounded memory, and the local changes not yet on a remote.
extension ContactStore {
    /// One listed remote entry; `etag` is nil for a removal. `card` is its card where the listing brought it, `size`
    /// its size in bytes where the listing said (fetches are paged by it: `listing(removed:after:limit:bytes:)`).
    public struct ListedEntry: Sendable, Equatable {
        public var href: String
        public var etag: String?
        public var card: [UInt8]?
        public var size: Int?

        public init(href: String, etag: String?, card: [UInt8]? = nil, size: Int? = nil) {
            self.href = href
            self.etag = etag
            self.card = card
            self.size = size
        }
    }

    /// A local contact that differs from what a remote last saw, with that base state (nil: never synced there).
    public struct LocalChange: Sendable {
        public var contact: StoredContact
        public var base: RemoteItemState?
    }

    /// Starts an empty listing for this run, in a database of its own that lives for the run: a nameless one, on
    /// disk (in `/var/tmp` unless `SQLITE_TMPDIR` or `TMPDIR` says otherwise), which SQLite deletes when it is
    /// detached (`endListing`). Nothing in it needs undoing: a run that fails drops it whole, so it keeps no
    /// journal, and its page cache is given back with it. Cards a listing brings along go to a second such database
    /// (`dropListedCards`), as they come: appended, not sorted into the listing's tree, whose leaves they would crowd
    /// (a small cache then reads and writes each page again and again), and dropped whole, not deleted row by row
    /// (which reads every page of every card again). The answer is read as fast as it comes, whatever the work per
    /// card; they are settled after it.
    public func beginListing() throws {
        try endListing()
        try db.execute(
            """
            ATTACH DATABASE '' AS listing;
            PRAGMA listing.journal_mode = OFF;
            PRAGMA listing.cache_size = -\(Self.listingCacheKiB);
            CREATE TABLE listing.entries (
                href TEXT PRIMARY KEY, etag TEXT, state INTEGER NOT NULL, -- 0 changed, 1 removed, 2 unchanged
                card INTEGER, -- its card in listed.cards, where the listing brought it
                size INTEGER -- its size in bytes, where the listing said
            ) WITHOUT ROWID;
            ATTACH DATABASE '' AS listed;
            PRAGMA listed.journal_mode = OFF;
            PRAGMA listed.cache_size = -64;
            CREATE TABLE listed.cards (id INTEGER PRIMARY KEY, card BLOB NOT NULL);
            """)
    }

    /// The listing's page cache. Its tree takes entries in the order the remote lists them, so a cache smaller
    /// than the tree reads and writes a page again for nearly every entry. Each MiB of cache is a MiB of
    /// footprint, for a few percent of a download's CPU: it stays small (the I/O it costs, measured:
    /// `Docs/measurements/speed.md`, "The listing in a database of the run's own").
    static let listingCacheKiB = 256

    /// Drops this run's listing and the cards it brought, with the files they were kept in.
    public func endListing() throws {
        try dropListedCards()
        try detach("listing")
    }

    /// Adds up to `chunkLimit` entries of remote `remoteID`'s listing in one transaction; a later entry for the
    /// same href replaces an earlier one, keeping the card the earlier one brought if the ETag is the same (a
    /// listing that follows one cut short). An entry whose ETag equals the saved one is marked unchanged as it goes
    /// in, not deleted afterwards: one `DELETE` of the unchanged entries of a whole listing collected their keys
    /// in an ephemeral table first, which SQLite's temporary cache size does not bound (the footprint of a no-op
    /// sync of a folder grew with its size: `Deploy/bench/sync.sh`, `Docs/measurements/memory.md`).
    public func addToListing(_ entries: [ListedEntry], remoteID: Int64) throws {
        guard entries.count <= Self.chunkLimit else {
            throw ContactStoreError(.chunkTooLarge, "\(entries.count) listing entries; at most \(Self.chunkLimit)")
        }
        try db.transaction {
            for entry in entries {
                var card: Int64?
                if let bytes = entry.card {
                    try db.run("INSERT INTO listed.cards (card) VALUES (?)", bytes)
                    card = db.lastInsertRowID
                }
                try db.run(
                    """
                    INSERT INTO listing.entries (href, etag, state, card, size)
                    VALUES (?1, ?2, CASE WHEN ?2 IS NULL THEN 1 WHEN EXISTS (
                        SELECT 1 FROM remote_items WHERE remote_id = ?3 AND href = ?1 AND etag = ?2) THEN 2 ELSE 0 END,
                        ?4, ?5)
                    ON CONFLICT (href) DO UPDATE SET etag = excluded.etag, state = excluded.state,
                        card = CASE WHEN excluded.etag IS entries.etag THEN coalesce(excluded.card, entries.card) END,
                        size = coalesce(excluded.size, CASE WHEN excluded.etag IS entries.etag THEN entries.size END)
                    """, entry.href, entry.etag, remoteID, card, entry.size)
            }
        }
    }

    /// Turns the listing into the remote's changes: after a full listing, every saved item not listed was
    /// removed; listed items whose ETag equals the saved one are unchanged (`addToListing`) and passed over;
    /// removals of hrefs this remote never synced are dropped (Radicale reports long-deleted items on a first
    /// sync-collection).
    ///
    /// Items this client created after the token the listing started from must be among the changes since that
    /// token; one that is not was deleted meanwhile (a server may leave out an item created and deleted after the
    /// token, as Xandikos does), so it is listed as removed.
    public func settleListing(remoteID: Int64, isFullListing: Bool) throws {
        try db.transaction {
            try db.run(
                "UPDATE remote_items SET created_here = 2 WHERE remote_id = ? AND created_here = 1 AND created_here <> 0",
                remoteID)
            // Two statements, so that each can use its index: all the remote's items after a full listing, only
            // the flagged ones (the partial index) after a delta.
            try db.run(
                """
                INSERT INTO listing.entries (href, etag, state)
                SELECT href, NULL, 1 FROM remote_items r WHERE r.remote_id = ?
                AND \(isFullListing ? "1" : "r.created_here = 2 AND r.created_here <> 0")
                AND NOT EXISTS (SELECT 1 FROM listing.entries l WHERE l.href = r.href)
                """, remoteID)
            try db.run(
                """
                DELETE FROM listing.entries WHERE state = 1 AND NOT EXISTS (
                    SELECT 1 FROM remote_items r WHERE r.remote_id = ? AND r.href = entries.href)
                """, remoteID)
        }
    }

    /// The listing's changed (or removed) entries after `href` that came without their cards, in href order: those
    /// that brought them are settled from them (`listedCards`). At most `limit` of them, and, where `bytes` is given,
    /// fewer when their known sizes would add up to more than `bytes`; an entry larger than that alone is a page of
    /// its own. Entries of unknown size count only against `limit`.
    public func listing(
        removed: Bool, after href: String?, limit: Int = ContactStore.chunkLimit, bytes: Int? = nil
    ) throws -> [ListedEntry] {
        try Self.checkLimit(limit)
        var page = try db.query(
            """
            SELECT href, etag, size FROM listing.entries WHERE state = ? AND card IS NULL AND href > ?
            ORDER BY href LIMIT ?
            """, removed, href ?? "", limit
        ) { row in
            ListedEntry(href: try row.string(0), etag: try row.optionalString(1), size: try row.optionalInt(2))
        }
        if let bytes {
            // Cut after the rows are read: whether a row fits is known only once its size is (the rows beyond the
            // cut, at most `limit` small ones, are read again for the next page).
            var total = 0
            let fitting = page.indices.firstIndex { index in
                total += page[index].size ?? 0
                return index > 0 && total > bytes
            }
            if let fitting { page.removeSubrange(fitting...) }
        }
        return page
    }

    /// How many of the listing's changed entries to fetch (those without their cards) have no known size: where
    /// none, every page can be bounded by bytes alone.
    public func listingCountWithoutSize() throws -> Int {
        Int(
            try db.scalarInt64(
                "SELECT count(*) FROM listing.entries WHERE state = 0 AND card IS NULL AND size IS NULL") ?? 0)
    }

    /// The listing's changed entries after `href` that brought their cards, with them, in href order.
    public func listedCards(after href: String?, limit: Int) throws -> [ListedEntry] {
        try Self.checkLimit(limit)
        return try db.query(
            """
            SELECT l.href, l.etag, c.card FROM listing.entries l JOIN listed.cards c ON c.id = l.card
            WHERE l.state = 0 AND l.href > ? ORDER BY l.href LIMIT ?
            """, href ?? "", limit
        ) { row in ListedEntry(href: try row.string(0), etag: try row.optionalString(1), card: try row.blob(2)) }
    }

    /// Drops the cards a listing brought, with the file they were kept in.
    public func dropListedCards() throws {
        try detach("listed")
    }

    private func detach(_ name: String) throws {
        guard try db.scalarInt64("SELECT 1 FROM pragma_database_list WHERE name = ?", name) != nil else { return }
        try db.execute("DETACH DATABASE \(name)")  // one of this file's names, not an input
    }

    /// Whether the listing reports `href` as removed (an item that moved shows up as removed here and new there).
    public func listingHasRemoval(_ href: String) throws -> Bool {
        try db.scalarInt64("SELECT 1 FROM listing.entries WHERE href = ? AND state = 1", href) != nil
    }

    public func listingCount(removed: Bool) throws -> Int {
        Int(try db.scalarInt64("SELECT count(*) FROM listing.entries WHERE state = ?", removed) ?? 0)
    }

    /// How many of the listing's entries, removals aside, are items remote `remoteID` has a saved state for and this
    /// client did not create since its token (`created_here`, see `settleListing`): one seek of `remote_items`' href
    /// index each.
    public func listingKnownCount(remoteID: Int64) throws -> Int {
        Int(
            try db.scalarInt64(
                """
                SELECT count(*) FROM listing.entries l WHERE l.state <> 1 AND EXISTS (
                    SELECT 1 FROM remote_items r WHERE r.remote_id = ? AND r.href = l.href AND r.created_here = 0)
                """, remoteID) ?? 0)
    }

    /// How many items this client created on remote `remoteID` since its token (`created_here`): the changes since
    /// the token name them all. The partial index holds only those.
    public func createdHereCount(remoteID: Int64) throws -> Int {
        Int(
            try db.scalarInt64(
                "SELECT count(*) FROM remote_items WHERE remote_id = ? AND created_here <> 0", remoteID) ?? 0)
    }

    /// How many contacts this remote has and the store deleted: the deletions a sync would send there.
    public func pendingRemoteDeletions(remoteID: Int64) throws -> Int {
        Int(
            try db.scalarInt64(
                """
                SELECT count(*) FROM remote_items r JOIN contacts c ON c.uid = r.uid
                WHERE r.remote_id = ? AND c.deleted = 1
                """, remoteID) ?? 0)
    }

    /// Local contacts changed after `seq` (up to `upper`) that differ from what this remote last saw: live ones it
    /// does not have or has another version of, and deleted ones it still has. In change order, a page at a time:
    /// `limit` of them, fewer when their text reaches `bytes` (`chunkBytes`).
    public func localChanges(
        remoteID: Int64, after seq: Int64, upTo upper: Int64, limit: Int = ContactStore.chunkLimit,
        bytes: Int = ContactStore.chunkBytes
    ) throws -> [LocalChange] {
        try Self.checkLimit(limit)
        let columns = Self.contactColumns(of: "c")
        let own = Self.contactColumnCount
        var size = 0
        return try db.query(
            """
            SELECT \(columns), r.href, r.etag, r.hash FROM contacts c
            LEFT JOIN remote_items r ON r.remote_id = ? AND r.uid = c.uid
            WHERE c.change_seq > ? AND c.change_seq <= ?
            AND ((c.deleted = 0 AND (r.uid IS NULL OR r.hash <> c.hash)) OR (c.deleted = 1 AND r.uid IS NOT NULL))
            ORDER BY c.change_seq LIMIT ?
            """, arguments: [remoteID, seq, upper, limit],
            map: { row in
                let contact = try storedContact(row)
                let base = try row.optionalString(own).map { href in
                    RemoteItemState(
                        remoteID: remoteID, uid: contact.uid, href: href, etag: try row.optionalString(own + 1),
                        hash: try row.string(own + 2))
                }
                return LocalChange(contact: contact, base: base)
            },
            isLast: { change in
                size += change.contact.text.count
                return size >= bytes
            })
    }

    /// Keeps a version that is about to be lost (a conflict's loser that only the remote had) in history.
    public func archive(
        uid: String, text: CardText, hash: String, reason: String, remoteID: Int64?, runID: Int64? = nil
    ) throws {
        try recordHistory(
            uid: uid, text: text, hash: hash, kind: .archived,
            origin: HistoryOrigin(reason: reason, remoteID: remoteID, runID: runID), at: try stamp())
    }
}

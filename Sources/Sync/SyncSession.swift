import ContactStore
import Logging
import VCard

/// One run against one remote, read like the `Planner` it serves: list the remote's changes into the store, then
/// for the items it changed, the items it removed, and the local changes it has not seen, in chunks of at most 100:
/// plan each item (`SyncSession+Plan.swift`: steps, no writes), execute the chunk's steps and commit its store
/// changes in one transaction (`SyncSession+Execute.swift`).
final class SyncSession {
    let store: ContactStore
    let book: AddressBook
    let remote: Remote
    /// This run's row in the journal (nil in a dry run): the store's history rows name it, so it can be undone.
    /// The run's row in the journal, written when it first changes the store (nil: a dry run).
    let journal: RunJournal?
    let options: SyncOptions
    let logger: Logger
    let progress: ((SyncProgress) -> Void)?
    var report: SyncReport
    /// Deletions are held for confirmation in this run (the remote suddenly looks empty, or too many would go).
    var holdDeletions = false
    /// UIDs re-planned after a 412 in this run: a second 412 is an error, never a loop.
    var replanned: Set<String> = []
    /// UIDs whose change did not reach the remote in this run (an error, or a held deletion): the local watermark
    /// must stay below them so that the next run tries again.
    var unsettled: Set<String> = []
    /// UIDs whose conflict waits for the box's clock to be set (`SyncReport.waitingForClock`): the remote's
    /// listing is read again from the same token next run, and the box's version is not sent meanwhile.
    var waitingForClock: Set<String> = []
    /// Items planned in the current chunk, by UID: their saved state is committed only with the chunk, and two
    /// cards with one UID in one chunk must still be told apart.
    var chunkItems: [String: RemoteItemState] = [:]
    /// The form the remote keeps cards intact in (`WriteForm`), as learned by this and earlier runs.
    var writeForm: Set<String>

    init(
        store: ContactStore, book: AddressBook, remote: Remote, journal: RunJournal?, options: SyncOptions,
        logger: Logger,
        progress: ((SyncProgress) -> Void)?
    ) {
        self.journal = journal
        self.store = store
        self.book = book
        self.remote = remote
        self.options = options
        self.logger = logger
        self.progress = progress
        self.report = SyncReport(remote: book.name, outcome: .ok)
        self.writeForm = remote.writeForm
    }

    func run() throws {
        defer { endListing() }
        if let readingBack = book as? ReadsBackWrites, !readingBack.readsBackWrites {
            readingBack.readsBackWrites =
                try !writeForm.isEmpty || !store.damagedItems(remoteID: remote.id, limit: 1).isEmpty
        }
        let feed = try collectRemoteChanges()
        try checkDeletionGuard(feed)
        try settleRemoteChanges()
        try settleRemoteRemovals()
        try settleLocalChanges()
        if holdDeletions {
            report.outcome = .deletionsHeld
        } else if !options.dryRun, feed.newToken != remote.syncToken, feed.skipped.isEmpty,
            waitingForClock.isEmpty
        {
            // Stored last: every change before the token is applied by now. Not past an item the listing named and
            // this run could not use (an href too long or not UTF-8): each is an error of this run, and the next
            // run, from the old token, lists it and says so again rather than never.
            try store.setSyncToken(feed.newToken, remoteID: remote.id)
        }
        if !options.dryRun, let concurrency = book.learnedWriteConcurrency, concurrency != remote.writeConcurrency {
            try store.setWriteConcurrency(concurrency, remoteID: remote.id)
        }
        if !options.dryRun, writeForm != remote.writeForm { try store.setWriteForm(writeForm, remoteID: remote.id) }
        logger.info(
            "Sync finished",
            metadata: [
                "sync.uploaded": "\(report.counts.uploaded)", "sync.downloaded": "\(report.counts.downloaded)",
                "sync.updated": "\(report.counts.updated)", "sync.deleted": "\(report.counts.deleted)",
                "sync.conflicts": "\(report.counts.conflicts)", "sync.errors": "\(report.counts.errors)",
            ])
    }

    // MARK: Collecting

    /// The remote's listing, into the store's, a chunk at a time (at most `chunkLimit` entries, and about
    /// `chunkBytes` of the cards a first download's listing may bring along). A delta that reads as the whole book
    /// (`deltaListsWholeBook`) is followed by a full listing, which alone may show deletions.
    private func collectRemoteChanges() throws -> ChangeFeed {
        let known = try store.remoteItemCount(remoteID: remote.id)
        var listing = try collect(since: options.fullCheck ? nil : remote.syncToken, withCards: known == 0)
        if try deltaListsWholeBook(listing, known: known) {
            logger.info(
                "The changes since the token name half the items or more and no removal: listing the whole book",
                metadata: ["remote.name": "\(book.name)", "sync.listed": "\(listing.listed)", "sync.known": "\(known)"])
            listing = try collect(since: nil, withCards: false)
        }
        let feed = listing.feed
        for skipped in feed.skipped { report.recordError("\(book.name): \(skipped)") }
        try store.settleListing(remoteID: remote.id, isFullListing: feed.isFullListing)
        remoteListedNothing = feed.isFullListing && listing.listed == 0
        return feed
    }

    /// One listing from `token` (nil: the whole book) into a fresh listing of the store's.
    private func collect(since token: String?, withCards: Bool) throws -> Listing {
        try store.beginListing()
        var buffer: [ContactStore.ListedEntry] = []
        var bufferBytes = 0
        var listed = 0
        var removals = 0
        func add(_ entry: ContactStore.ListedEntry) throws {
            buffer.append(entry)
            bufferBytes += entry.card?.count ?? 0
            if buffer.count == ContactStore.chunkLimit || bufferBytes >= ContactStore.chunkBytes { try flush() }
        }
        func flush() throws {
            try store.addToListing(buffer, remoteID: remote.id)
            buffer.removeAll(keepingCapacity: true)
            bufferBytes = 0
            progress?(SyncProgress(phase: "Listing", done: listed, total: 0))
            try checkStop()
        }
        let feed = try book.changes(
            since: token, withCards: withCards,
            changed: { entry in
                listed += 1
                try add(
                    ContactStore.ListedEntry(href: entry.href, etag: entry.etag, card: entry.card, size: entry.size))
            },
            removed: { href in
                removals += 1
                try add(ContactStore.ListedEntry(href: href, etag: nil))
            })
        try flush()
        return Listing(feed: feed, listed: listed, removals: removals)
    }

    private var remoteListedNothing = false

    /// The listing is this run's alone: its files and page cache go with the run, whatever its end.
    private func endListing() {
        do {
            try store.endListing()
        } catch {
            logger.warning(
                "The run's listing was not dropped; the next run drops it", metadata: ["sync.error": "\(error)"])
        }
    }

    /// Safety first (Docs/architecture.md): a remote that suddenly lists empty, or a run that would delete more than
    /// the configured share, deletes nothing until a person confirms.
    private func checkDeletionGuard(_ feed: ChangeFeed) throws {
        let synced = try store.remoteItemCount(remoteID: remote.id)
        guard synced > 0, !options.confirmDeletions else { return }
        let deletions = try store.listingCount(removed: true) + store.pendingRemoteDeletions(remoteID: remote.id)
        if remoteListedNothing {
            holdDeletions = true
            report.message =
                "\(book.name) lists no contacts, but \(synced) were synced with it before; nothing was deleted."
        } else if deletions > SyncOptions.deletionsAlwaysAllowed,
            Double(deletions) > options.maxDeleteShare * Double(synced)
        {
            holdDeletions = true
            report.message =
                "this run would delete \(deletions) of \(synced) contacts synced with \(book.name)"
                + " (more than \(Int(options.maxDeleteShare * 100))%); nothing was deleted."
        }
        if holdDeletions {
            report.deletionsHeld = deletions
            logger.notice("Deletions held for confirmation", metadata: ["sync.deletions": "\(deletions)"])
        }
    }

    // MARK: Settling

    /// Items the remote added or changed: those whose cards the listing brought, then the others, fetched a page
    /// at a time: at most 100, and where the listing gave sizes, at most `ContactStore.chunkBytes` of them (a card
    /// larger than that is a page of its own).
    private func settleRemoteChanges() throws {
        let total = try store.listingCount(removed: false)
        var done = 0
        // The first page (and the second, where `fetchPages` asks for it ahead) is asked for before any card's size
        // is known (`pageLimit`): a small one.
        var limit = ContactStore.chunkLimit / 4
        var after: String?
        while true {
            let page = try store.listedCards(after: after, limit: limit)
            guard let last = page.last else { break }
            let results = page.map { entry in
                RemoteCard.read(.bytes(entry.card ?? []), href: entry.href, etag: entry.etag ?? "", from: book.name)
            }
            try settle(results)
            after = last.href
            done += page.count
            progress?(SyncProgress(phase: "Receiving", done: done, total: total))
            limit = Self.pageLimit(after: results)
        }
        try store.dropListedCards()
        after = nil
        // Where the listing gave every size, the bytes bound each page from the first on, and no count is learned;
        // else the count learned from the cards read (`pageLimit`) bounds the pages too.
        let sized = try store.listingCountWithoutSize() == 0
        if sized { limit = ContactStore.chunkLimit }
        // The listing is read a page ahead of the pages committed: a remote may fetch the next while this one is
        // planned and written (`AddressBook.fetchPages`). Committing changes nothing in the listing.
        func nextPage() throws -> [String]? {
            let page = try store.listing(removed: false, after: after, limit: limit, bytes: ContactStore.chunkBytes)
            guard let last = page.last else { return nil }
            after = last.href
            return page.map(\.href)
        }
        try book.fetchPages(nextPage) { hrefs, results in
            try settle(results)
            done += hrefs.count
            progress?(SyncProgress(phase: "Receiving", done: done, total: total))
            if !sized { limit = Self.pageLimit(after: results) }
        }
    }

    /// One chunk of fetched items planned and executed; an item's error is that item's alone.
    private func settle(_ results: [Result<RemoteCard, RemoteError>]) throws {
        let steps = try store.reading {
            var steps: [SyncStep] = []
            for result in results {
                switch result {
                case .success(let card): steps += try plan(fetched: card)
                case .failure(let error): report.recordError("\(book.name): \(error.message)")
                }
            }
            return steps
        }
        try execute(steps)
    }

    /// How many cards the next pages ask for: as many as fit in `ContactStore.chunkBytes` at the size of the
    /// page just read, up to `chunkLimit`. A book of photos is fetched a few cards at a time.
    static func pageLimit(after results: [Result<RemoteCard, RemoteError>]) -> Int {
        var count = 0
        var bytes = 0
        for case .success(let fetched) in results {
            count += 1
            bytes += fetched.card.approximateSize
        }
        guard bytes > 0 else { return ContactStore.chunkLimit }
        return max(1, min(ContactStore.chunkLimit, count * ContactStore.chunkBytes / bytes))
    }

    /// Items the remote no longer has.
    private func settleRemoteRemovals() throws {
        var after: String?
        while true {
            let page = try store.listing(removed: true, after: after)
            guard let last = page.last else { return }
            after = last.href
            var steps: [SyncStep] = []
            for entry in page {
                guard let base = try store.remoteItem(remoteID: remote.id, href: entry.href) else { continue }
                steps += try plan(uid: base.uid, base: base, local: try store.contact(uid: base.uid), remote: .removed)
            }
            try execute(steps)
        }
    }

    /// Local changes this remote has not seen, in change order from the remote's watermark.
    private func settleLocalChanges() throws {
        let upper = try store.currentChangeSeq()
        var cursor = remote.syncedSeq
        var firstUnsettled: Int64?
        while true {
            // Half a chunk's text: each card is held twice while its write is in flight, parsed and as the body.
            var page = try store.localChanges(
                remoteID: remote.id, after: cursor, upTo: upper, bytes: ContactStore.chunkBytes / 2)
            guard let last = page.last else { break }
            cursor = last.contact.changeSeq
            var steps: [SyncStep] = []
            for change in page {
                // The remote's own changes were settled above, so its side is as the base says (or absent).
                let remoteSide: RemoteState = change.base == nil ? .removed : .unchangedSinceBase
                steps += try plan(uid: change.contact.uid, base: change.base, local: change.contact, remote: remoteSide)
            }
            // The stored texts go before the writes make their own: a chunk holds each card's text once.
            let order = page.map { (uid: $0.contact.uid, seq: $0.contact.changeSeq) }
            page = []
            try execute(steps)
            if firstUnsettled == nil, let first = order.first(where: { unsettled.contains($0.uid) }) {
                firstUnsettled = first.seq
            }
            progress?(
                SyncProgress(
                    phase: "Sending", done: Int(cursor - remote.syncedSeq), total: Int(upper - remote.syncedSeq)))
        }
        if !options.dryRun {
            // Everything below the first item left unsettled has reached the remote.
            try store.setSyncedSeq(firstUnsettled.map { $0 - 1 } ?? upper, remoteID: remote.id)
        }
    }

    /// Ends the run between chunks when the daemon is stopping, or the turn's deadline has passed: everything
    /// committed so far stays, the token and the watermark do not move, and the next run picks up from there.
    func checkStop() throws {
        if options.shouldStop?() == true { throw SyncStopped() }
        if let deadline = options.deadline, deadline.hasPassed { throw deadline.error(remote: book.name) }
    }
}

/// The run was asked to stop (`SyncOptions.shouldStop`).
struct SyncStopped: Error {}

extension RemoteError {
    /// Errors about the remote as a whole, not one item.
    var stopsTheRun: Bool {
        switch kind {
        case .unauthorized, .unavailable, .unreachable, .tooSlow, .notFound, .invalidSyncToken, .malformed,
            .notAnAddressBook:
            true
        case .preconditionFailed, .rejected: false
        }
    }
}

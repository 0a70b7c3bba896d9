import ContactStore
import Glibc
import VCard

/// The remote's side of one item, as far as this run knows.
enum RemoteState {
    case fetched(RemoteCard)
    case removed
    /// Not listed as changed: still as the base says.
    case unchangedSinceBase
}

extension SyncSession {
    /// One item the remote added or changed.
    func settleFetched(_ fetched: RemoteCard) throws {
        if let why = fetched.unreadable {
            report.recordNote("\(book.name): \(fetched.href) cannot be read (\(why)); kept as it is, as unreadable")
        }
        for note in fetched.notes { report.recordNote("\(book.name): \(fetched.href): \(note)") }
        var fetched = fetched
        if let previous = try store.remoteItem(remoteID: remote.id, href: fetched.href), previous.uid != fetched.uid {
            if previous.uid == RemoteCard.duplicateUID(fetched.uid, href: fetched.href) {
                fetched = fetched.withUID(previous.uid)  // a second card with a taken UID, kept apart before
            } else {
                // The item at this place now carries another identity: the old one has left the remote.
                try settle(
                    uid: previous.uid, base: previous, local: try store.contact(uid: previous.uid), remote: .removed)
            }
        }
        let uid = fetched.uid
        var base = try store.remoteItem(remoteID: remote.id, uid: uid)
        if base == nil, let seen = chunkItems[uid] {
            base = seen  // settled earlier in this chunk, not committed yet
        }
        if let known = base, known.href != fetched.href {
            if try store.listingHasRemoval(known.href) {
                base?.href = fetched.href  // moved on the server
            } else {
                return try settleDuplicate(fetched, of: known)
            }
        }
        chunkItems[uid] = RemoteItemState(
            remoteID: remote.id, uid: uid, href: fetched.href, etag: fetched.etag, hash: fetched.hash)
        try settle(uid: uid, base: base, local: try store.contact(uid: uid), remote: .fetched(fetched))
    }

    /// Two hrefs, one UID: merged only when the second holds exactly what is synced already; otherwise the second
    /// is kept as a contact of its own, under an identity derived from its UID and place.
    private func settleDuplicate(_ fetched: RemoteCard, of known: RemoteItemState) throws {
        guard fetched.hash == known.hash else {
            let copy = fetched.withUID(RemoteCard.duplicateUID(fetched.uid, href: fetched.href))
            report.recordNote(
                "\(book.name): UID \(known.uid) is at two places, \(known.href) and \(fetched.href), with different"
                    + " content; the second is kept as a contact of its own (UID \(copy.uid))")
            return try settleFetched(copy)
        }
        logger.info("Merging a duplicate on the remote", metadata: ["sync.href": "\(fetched.href)"])
        writes.append(
            (
                .delete(href: fetched.href, etag: fetched.etag),
                { [self] result in
                    if case .failure(let error) = result { report.recordError("\(book.name): \(error.message)") }
                }
            ))
    }

    /// Decides what to do with one item and queues it: remote writes first, store changes after them.
    func settle(uid: String, base: RemoteItemState?, local: StoredContact?, remote remoteState: RemoteState) throws {
        let localCard = LazyCard(local)
        var mine: Planner.Side = .absent
        if let local, !local.deleted { mine = .present(Planner.Version(hash: local.hash)) }
        var theirs: Planner.Side
        switch remoteState {
        case .fetched(let fetched): theirs = .present(Planner.Version(hash: fetched.hash))
        case .removed: theirs = .absent
        case .unchangedSinceBase: theirs = .unchanged
        }
        if options.policy == .newest, case .present(var myVersion) = mine, case .fetched(let fetched) = remoteState,
            case .present(var theirVersion) = theirs, myVersion.hash != theirVersion.hash
        {
            myVersion.rev = localCard.card?.first("REV")?.value
            theirVersion.rev = fetched.card.first("REV")?.value
            mine = .present(myVersion)
            theirs = .present(theirVersion)
        }
        let decision = Planner.decide(
            base: base.map { Planner.Base(hash: $0.hash) }, local: mine, remote: theirs, policy: options.policy,
            localTime: local.map { Self.revText(milliseconds: $0.changedAt) })
        try carryOut(decision, uid: uid, base: base, local: local, localCard: localCard, remote: remoteState)
    }

    private func carryOut(
        _ decision: Planner.Decision, uid: String, base: RemoteItemState?, local: StoredContact?,
        localCard: LazyCard, remote remoteState: RemoteState
    ) throws {
        let fetched: RemoteCard?
        if case .fetched(let card) = remoteState { fetched = card } else { fetched = nil }
        switch decision {
        case .nothing:
            break
        case .markSynced:
            guard let fetched else { break }
            recordBase(uid: uid, entry: RemoteEntry(href: fetched.href, etag: fetched.etag), hash: fetched.hash)
        case .download:
            guard let fetched else { break }
            download(fetched, uid: uid, local: local, reason: "replaced by \(book.name)")
        case .upload:
            try upload(uid: uid, localCard: localCard, base: base, remote: remoteState)
        case .deleteLocal:
            guard !holdDeletions else { break }  // the remote's removal is seen again next run
            report.counts.deleted += 1
            pending.append { [self] in
                try store.delete(uid: uid, reason: "deleted on \(book.name)", remoteID: remote.id)
                try store.deleteRemoteItem(remoteID: remote.id, uid: uid)
            }
        case .deleteRemote:
            guard !holdDeletions, let base else {
                unsettled.insert(uid)
                break
            }
            writes.append(
                (
                    .delete(href: base.href, etag: base.etag ?? ""),
                    { [self] result in
                        switch result {
                        case .success:
                            report.counts.deleted += 1
                            pending.append { [self] in try store.deleteRemoteItem(remoteID: remote.id, uid: uid) }
                        case .failure(let error):
                            try handleWriteFailure(error, uid: uid, href: base.href)
                        }
                    }
                ))
        case .forget:
            pending.append { [self] in try store.deleteRemoteItem(remoteID: remote.id, uid: uid) }
        case .conflict(let winner):
            report.counts.conflicts += 1
            let reason = "conflict-lost:\(book.name)"
            guard let fetched else { break }
            switch winner {
            case .remote:
                download(fetched, uid: uid, local: local, reason: reason)
            case .local:
                pending.append { [self] in
                    try store.archive(
                        uid: uid, vcard: fetched.card.serialized(), hash: fetched.hash, reason: reason,
                        remoteID: remote.id)
                }
                try upload(uid: uid, localCard: localCard, base: base, remote: remoteState)
            }
        }
    }

    private func download(_ fetched: RemoteCard, uid: String, local: StoredContact?, reason: String) {
        if local == nil || local?.deleted == true {
            report.counts.downloaded += 1
        } else {
            report.counts.updated += 1
        }
        pending.append { [self] in
            try store.upsert(fetched.card, hash: fetched.hash, reason: reason, remoteID: remote.id)
        }
        recordBase(uid: uid, entry: RemoteEntry(href: fetched.href, etag: fetched.etag), hash: fetched.hash)
    }

    /// Sends the local version: an update where the remote has the item, a create (If-None-Match: *) otherwise.
    private func upload(
        uid: String, localCard: LazyCard, base: RemoteItemState?, remote remoteState: RemoteState
    ) throws {
        guard let card = localCard.card, let hash = localCard.stored?.hash else {
            unsettled.insert(uid)
            report.recordError("\(book.name): the stored card \(uid) cannot be read back; run `contactbox check`")
            return
        }
        let refusal = try store.refusal(remoteID: remote.id, uid: uid)
        if refusal?.hash == hash {
            // Refused before in this very version: reported then; sent again when the contact changes.
            unsettled.insert(uid)
            report.stillRefused += 1
            return
        }
        let outgoing = card.converted(toVersion: book.writeVersion)
        let write: RemoteWrite
        switch remoteState {
        case .fetched(let fetched): write = .update(href: fetched.href, etag: fetched.etag, card: outgoing)
        case .unchangedSinceBase:
            if let base {
                write = .update(href: base.href, etag: base.etag ?? "", card: outgoing)
            } else {
                write = .create(outgoing)
            }
        case .removed: write = .create(outgoing)
        }
        queueUpload(write, uid: uid, hash: hash, hadRefusal: refusal != nil)
    }

    /// Queues an upload and what follows it: the new base, or the failure's handling. A server that refuses a card
    /// without FN gets it once more with an FN made from the card's own N, ORG, EMAIL or TEL (never invented), noted;
    /// when that goes through, the store takes the card with its FN too (the old version in history), so that every
    /// side holds the same.
    private func queueUpload(
        _ write: RemoteWrite, uid: String, hash: String, hadRefusal: Bool, addedFN: Bool = false
    ) {
        let target = write.href(in: book)
        let isCreate: Bool
        if case .create = write { isCreate = true } else { isCreate = false }
        writes.append(
            (
                write,
                { [self] result in
                    switch result {
                    case .success(let entry):
                        guard let entry else { return }
                        if isCreate { report.counts.uploaded += 1 } else { report.counts.updated += 1 }
                        var hash = hash
                        if addedFN, let named = write.card {
                            hash = named.contentHash
                            pending.append { [self] in
                                try store.upsert(
                                    named, hash: hash, reason: "FN added for \(book.name)", remoteID: remote.id)
                            }
                        }
                        recordBase(uid: uid, entry: entry, hash: hash, created: isCreate)
                        if hadRefusal {
                            pending.append { [self] in try store.clearRefusal(remoteID: remote.id, uid: uid) }
                        }
                    case .failure(let error):
                        if case .rejected = error.kind, !addedFN, let (named, note) = write.card?.addingDerivedFN() {
                            report.recordNote("\(book.name): \(uid): refused (\(error.message)); sent again: \(note)")
                            queueUpload(
                                write.with(named), uid: uid, hash: hash, hadRefusal: hadRefusal, addedFN: true)
                            return
                        }
                        try handleWriteFailure(error, uid: uid, href: target, hash: hash)
                    }
                }
            ))
    }

    /// A 412 means the remote changed since we looked: fetch it once more and decide again. A card the server
    /// refuses is reported once with the server's reason and remembered, so that it is not an error on every pass
    /// (`hash` is the version sent). Anything else that concerns this item alone is recorded, and the run goes on.
    private func handleWriteFailure(_ error: RemoteError, uid: String, href: String, hash: String? = nil) throws {
        if case .rejected = error.kind, let hash {
            unsettled.insert(uid)
            report.recordRefusal("\(book.name): \(uid): \(error.message)")
            pending.append { [self] in
                try store.recordRefusal(remoteID: remote.id, uid: uid, hash: hash, reason: error.message)
            }
            return
        }
        guard error.kind == .preconditionFailed, !replanned.contains(uid) else {
            unsettled.insert(uid)
            report.recordError("\(book.name): \(uid): \(error.message)")
            return
        }
        replanned.insert(uid)
        let base = try store.remoteItem(remoteID: remote.id, uid: uid)
        var refetched: RemoteCard?
        try book.fetch([href]) { result in
            if case .success(let card) = result { refetched = card }
        }
        if let refetched {
            try settleFetched(refetched)
        } else {
            try settle(uid: uid, base: base, local: try store.contact(uid: uid), remote: .removed)
        }
    }

    /// Records what both sides now hold; `created` when this run created the item on the remote.
    private func recordBase(uid: String, entry: RemoteEntry, hash: String, created: Bool = false) {
        pending.append { [self] in
            if let other = try store.remoteItem(remoteID: remote.id, href: entry.href), other.uid != uid {
                try store.deleteRemoteItem(remoteID: remote.id, uid: other.uid)
            }
            try store.upsertRemoteItem(
                RemoteItemState(remoteID: remote.id, uid: uid, href: entry.href, etag: entry.etag, hash: hash),
                created: created)
        }
    }

    /// Unix milliseconds as REV-comparable UTC digits (`YYYYMMDDhhmmss`).
    static func revText(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday) + two(parts.tm_hour)
            + two(parts.tm_min) + two(parts.tm_sec)
    }
}

extension RemoteWrite {
    /// The card a create or an update sends.
    var card: Card? {
        switch self {
        case .create(let card), .update(_, _, let card): card
        case .delete: nil
        }
    }

    /// The same write with another card.
    func with(_ card: Card) -> RemoteWrite {
        switch self {
        case .create: .create(card)
        case .update(let href, let etag, _): .update(href: href, etag: etag, card: card)
        case .delete: self
        }
    }

    /// Where the write goes on `book`.
    func href(in book: AddressBook) -> String {
        switch self {
        case .create(let card): book.hrefForNew(card)
        case .update(let href, _, _), .delete(let href, _): href
        }
    }
}

/// The stored card, parsed only when a decision needs it (uploads, conflicts).
final class LazyCard {
    let stored: StoredContact?
    private var parsed: Card??

    init(_ stored: StoredContact?) {
        self.stored = stored
    }

    var card: Card? {
        if let parsed { return parsed }
        let card = stored.map { Card.stored($0.vcard, uid: $0.uid) }
        parsed = .some(card)
        return card
    }
}

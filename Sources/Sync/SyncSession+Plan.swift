import ContactStore
import Glibc
import SystemSupport
import VCard

/// The remote's side of one item, as far as this run knows.
enum RemoteState {
    case fetched(RemoteCard)
    case removed
    /// Not listed as changed: still as the base says.
    case unchangedSinceBase
}

/// Planning: what the store knows of one item, the `Planner`'s decision on it, and the steps that carry the decision
/// out. Nothing here writes to either side; the executor (`SyncSession+Execute.swift`) does.
extension SyncSession {
    /// The steps for one item the remote added or changed: the same path for an item listed and for one fetched
    /// again after a 412.
    func plan(fetched: RemoteCard) throws -> [SyncStep] {
        let previous = try store.remoteItem(remoteID: remote.id, href: fetched.href)
        if var known = previous, fetched.hash != known.hash,
            let damage = try store.damage(remoteID: remote.id, uid: known.uid), damage.hash == known.hash,
            damage.remoteHash == fetched.hash
        {
            // The server's damaged copy of the version it was sent (SyncSession+ReadBack.swift), whatever identity
            // the damage left it: no edit.
            known.etag = fetched.etag
            chunkItems[known.uid] = known
            return try [.keepBase(known)]
                + plan(
                    uid: known.uid, base: known, local: try store.contact(uid: known.uid), remote: .unchangedSinceBase)
        }
        if let why = fetched.unreadable {
            report.recordNote(
                "\(book.name): \(fetched.href) cannot be read (\(why)); it holds"
                    + " \(Card.quoted(fetched.card.opaqueText ?? "")); kept as it is, as unreadable")
        }
        for note in fetched.notes { report.recordNote("\(book.name): \(fetched.href): \(note)") }
        var fetched = fetched
        var steps: [SyncStep] = []
        if let previous, previous.uid != fetched.uid {
            if previous.uid == RemoteCard.duplicateUID(fetched.uid, href: fetched.href) {
                fetched = fetched.withUID(previous.uid)  // a second card with a taken UID, kept apart before
            } else {
                // The item at this place now carries another identity: the old one has left the remote.
                steps += try plan(
                    uid: previous.uid, base: previous, local: try store.contact(uid: previous.uid), remote: .removed)
            }
        }
        let uid = fetched.uid
        var base = try store.remoteItem(remoteID: remote.id, uid: uid)
        if base == nil, let seen = chunkItems[uid] {
            base = seen  // planned earlier in this chunk, not committed yet
        }
        if let known = base, known.href != fetched.href {
            if try store.listingHasRemoval(known.href) {
                base?.href = fetched.href  // moved on the server
            } else {
                return try steps + planDuplicate(fetched, of: known)
            }
        }
        chunkItems[uid] = RemoteItemState(
            remoteID: remote.id, uid: uid, href: fetched.href, etag: fetched.etag, hash: fetched.hash)
        return try steps + plan(uid: uid, base: base, local: try store.contact(uid: uid), remote: .fetched(fetched))
    }

    /// Two hrefs, one UID: merged only when the second holds exactly what is synced already; otherwise the second
    /// is kept as a contact of its own, under an identity derived from its UID and place.
    private func planDuplicate(_ fetched: RemoteCard, of known: RemoteItemState) throws -> [SyncStep] {
        guard fetched.hash == known.hash else {
            let copy = fetched.withUID(RemoteCard.duplicateUID(fetched.uid, href: fetched.href))
            report.recordNote(
                "\(book.name): UID \(known.uid) is at two places, \(known.href) and \(fetched.href), with different"
                    + " content; the second is kept as a contact of its own (UID \(copy.uid))")
            return try plan(fetched: copy)
        }
        logger.info("Merging a duplicate on the remote", metadata: ["sync.href": "\(fetched.href)"])
        return [.remote(.deleteDuplicate(href: fetched.href, etag: fetched.etag))]
    }

    /// The steps for one item: the `Planner` decides from the base and both sides.
    func plan(
        uid: String, base: RemoteItemState?, local: StoredContact?, remote remoteState: RemoteState
    ) throws -> [SyncStep] {
        let localCard = LazyCard(local)
        var mine: Planner.Side = .absent
        if let local, !local.deleted { mine = .present(Planner.Version(hash: local.hash)) }
        var theirs: Planner.Side
        switch remoteState {
        case .fetched(let fetched): theirs = .present(Planner.Version(hash: fetched.hash))
        case .removed: theirs = .absent
        case .unchangedSinceBase: theirs = .unchanged
        }
        var remoteHasRev = true
        if options.policy == .newest, case .present(var myVersion) = mine, case .fetched(let fetched) = remoteState,
            case .present(var theirVersion) = theirs, myVersion.hash != theirVersion.hash
        {
            myVersion.rev = localCard.card?.first("REV")?.value
            // A card without REV is dated by when the box first saw it: now.
            let rev = fetched.card.first("REV")?.value
            remoteHasRev = rev != nil
            theirVersion.rev = rev ?? Card.revision(milliseconds: wallClockMillis())
            mine = .present(myVersion)
            theirs = .present(theirVersion)
        }
        let planBase = base.map { Planner.Base(hash: $0.hash) }
        var decision = Planner.decide(
            base: planBase, local: mine, remote: theirs, policy: options.policy,
            localTime: local.map { Card.revision(milliseconds: $0.changedAt) })
        // A conflict decided by time is not decided by a clock not set (issue 36): asked of conflicts alone.
        if case .conflict = decision, options.policy == .newest, let local {
            switch try store.timeTrust(ofChange: local.changeSeq) {
            case .trusted where remoteHasRev || store.clockIsSet: break
            case .trusted, .waiting:
                // Both versions stay, the box's unsent; the pass after the clock is set decides.
                waitingForClock.insert(uid)
                report.waitingForClock = waitingForClock.count
            case .unsure:
                // Never known: not trusted over the remote's time.
                decision = Planner.decide(
                    base: planBase, local: mine, remote: theirs, policy: options.policy, localTime: nil)
            }
        }
        if waitingForClock.contains(uid) {
            unsettled.insert(uid)
            return []
        }
        return try steps(for: decision, uid: uid, base: base, local: local, localCard: localCard, remote: remoteState)
    }

    private func steps(
        for decision: Planner.Decision, uid: String, base: RemoteItemState?, local: StoredContact?,
        localCard: LazyCard, remote remoteState: RemoteState
    ) throws -> [SyncStep] {
        let fetched: RemoteCard?
        if case .fetched(let card) = remoteState { fetched = card } else { fetched = nil }
        switch decision {
        case .nothing:
            return []
        case .markSynced:
            guard let fetched else { return [] }
            return [.markSynced(fetched)]
        case .download:
            guard let fetched else { return [] }
            return [.download(fetched, reason: "replaced by \(book.name)", isNew: local?.deleted ?? true)]
        case .upload:
            return try upload(uid: uid, localCard: localCard, base: base, remote: remoteState)
        case .deleteLocal:
            guard !holdDeletions else { return [] }  // the remote's removal is seen again next run
            return [.deleteLocal(uid: uid)]
        case .deleteRemote:
            guard !holdDeletions, let base else {
                unsettled.insert(uid)
                return []
            }
            return [.remote(.delete(uid: uid, href: base.href, etag: base.etag ?? ""))]
        case .forget:
            return [.forget(uid: uid)]
        case .conflict(let winner):
            report.counts.conflicts += 1
            let reason = "conflict-lost:\(book.name)"
            guard let fetched else { return [] }
            switch winner {
            case .remote:
                return [.download(fetched, reason: reason, isNew: local?.deleted ?? true)]
            case .local:
                return try [.keepInHistory(fetched, reason: reason)]
                    + upload(uid: uid, localCard: localCard, base: base, remote: remoteState)
            }
        }
    }

    /// Sends the local version: an update where the remote has the item, a create (If-None-Match: *) otherwise.
    private func upload(
        uid: String, localCard: LazyCard, base: RemoteItemState?, remote remoteState: RemoteState
    ) throws -> [SyncStep] {
        guard let card = localCard.card, let hash = localCard.stored?.hash else {
            unsettled.insert(uid)
            report.recordError("\(book.name): the stored card \(uid) cannot be read back; run `contactbox check`")
            return []
        }
        let refusal = try store.refusal(remoteID: remote.id, uid: uid)
        if refusal?.hash == hash {
            // Refused before in this very version: reported then; sent again when the contact changes.
            unsettled.insert(uid)
            report.stillRefused += 1
            return []
        }
        let target: RemoteEntry?
        switch remoteState {
        case .fetched(let fetched): target = RemoteEntry(href: fetched.href, etag: fetched.etag)
        case .unchangedSinceBase: target = base.map { RemoteEntry(href: $0.href, etag: $0.etag ?? "") }
        case .removed: target = nil
        }
        var upload = Upload(
            uid: uid, card: card, target: target, hash: hash, hadRefusal: refusal != nil,
            revision: Card.revision(milliseconds: localCard.stored?.changedAt ?? 0))
        upload.apply(form: writeForm, version: book.writeVersion)
        return [.remote(.upload(upload))]
    }
}

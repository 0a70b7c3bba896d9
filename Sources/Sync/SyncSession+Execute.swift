import ContactStore

/// Execution: one chunk's steps carried out, its remote writes together, its store changes in one transaction.
extension SyncSession {
    /// What the result of one remote write leads to.
    enum WriteOutcome {
        /// Settled: these store changes record it.
        case done([StoreChange])
        /// The remote refused a card without FN: the same upload, with an FN made from the card's own fields.
        case sendAgain(Upload)
        /// 412: the remote's item changed since it was listed; fetch it and plan it again.
        case replan(uid: String, href: String)
    }

    /// Carries out one chunk's steps, then commits its store changes in one transaction. Writes that need another
    /// try (a card sent again with an FN, an item re-planned after a 412) go in a next round of the same chunk; each
    /// happens at most once per item, so the rounds end. A failure that stops the run (unreachable, unauthorised)
    /// still commits what was written before it, so that nothing is written twice next time.
    func execute(_ planned: [SyncStep]) throws {
        // The last chunk's cards are free by now: the caller may give their pages back (`beforeChunk`).
        options.beforeChunk?()
        var changes: [StoreChange] = []
        var steps = planned
        var stop: RemoteError?
        while !steps.isEmpty {
            var writes: [RemoteStep] = []
            for step in steps {
                if case .remote(let write) = step { writes.append(write) } else { changes += storeChanges(step) }
            }
            var next: [SyncStep] = []
            var replans: [(uid: String, href: String)] = []
            for (write, result) in zip(writes, perform(writes)) {
                if case .failure(let error) = result, error.stopsTheRun {
                    stop = stop ?? error
                    continue
                }
                switch outcome(of: write, result) {
                case .done(let done): changes += done
                case .sendAgain(let upload): next.append(.remote(.upload(upload)))
                case .replan(let uid, let href): replans.append((uid, href))
                }
            }
            guard stop == nil else { break }
            steps = try next + replan(replans)
        }
        chunkItems.removeAll(keepingCapacity: true)
        try commit(changes)
        if let stop { throw stop }
        try checkStop()
    }

    /// The store changes of a step that writes nothing to the remote.
    private func storeChanges(_ step: SyncStep) -> [StoreChange] {
        switch step {
        case .download(let fetched, let reason, let isNew):
            if isNew { report.counts.downloaded += 1 } else { report.counts.storeUpdated += 1 }
            return [
                .saveContact(fetched.card, hash: fetched.hash, reason: reason), Self.base(of: fetched),
            ]
        case .markSynced(let fetched):
            return [Self.base(of: fetched)]
        case .keepBase(let base):
            return [
                .recordBase(
                    uid: base.uid, entry: RemoteEntry(href: base.href, etag: base.etag ?? ""), hash: base.hash,
                    created: false)
            ]
        case .deleteLocal(let uid):
            report.counts.storeDeleted += 1
            return [.deleteContact(uid: uid, reason: "deleted on \(book.name)"), .forgetBase(uid: uid)]
        case .forget(let uid):
            return [.forgetBase(uid: uid)]
        case .keepInHistory(let fetched, let reason):
            return [
                .keepInHistory(
                    uid: fetched.uid, text: fetched.card.serializedText(), hash: fetched.hash, reason: reason)
            ]
        case .remote:
            return []  // carried out by `perform`
        }
    }

    private static func base(of fetched: RemoteCard) -> StoreChange {
        .recordBase(
            uid: fetched.uid, entry: RemoteEntry(href: fetched.href, etag: fetched.etag), hash: fetched.hash,
            created: false)
    }

    /// The writes, concurrently where the remote can; a dry run pretends each went through.
    private func perform(_ writes: [RemoteStep]) -> [Result<RemoteEntry?, RemoteError>] {
        guard !writes.isEmpty else { return [] }
        guard !options.dryRun else {
            return writes.map { .success(RemoteEntry(href: $0.write.href(in: book), etag: "")) }
        }
        return book.perform(writes.map(\.write))
    }

    private func outcome(of step: RemoteStep, _ result: Result<RemoteEntry?, RemoteError>) -> WriteOutcome {
        switch (step, result) {
        case (.upload(let upload), .success(let entry)):
            guard let entry else { return .done([]) }
            if let stored = entry.readBack, let outcome = checkReadBack(upload, entry: entry, stored: stored) {
                return outcome
            }
            var changes = uploaded(upload, to: entry)
            if (book as? ReadsBackWrites)?.readsBackWrites == true { changes.append(.clearDamage(uid: upload.uid)) }
            return .done(changes)
        case (.upload(let upload), .failure(let error)):
            if case .rejected = error.kind, !upload.addedFN, let (named, note) = upload.card.addingDerivedFN() {
                report.recordNote("\(book.name): \(upload.uid): refused (\(error.message)); sent again: \(note)")
                var again = upload
                again.card = named
                again.addedFN = true
                return .sendAgain(again)
            }
            return failed(error, uid: upload.uid, href: upload.write.href(in: book), refusedHash: upload.hash)
        case (.delete(let uid, _, _), .success):
            report.counts.serverDeleted += 1
            return .done([.forgetBase(uid: uid)])
        case (.delete(let uid, let href, _), .failure(let error)):
            return failed(error, uid: uid, href: href)
        case (.deleteDuplicate, .success):
            return .done([])
        case (.deleteDuplicate, .failure(let error)):
            report.recordError("\(book.name): \(error.message)")
            return .done([])
        }
    }

    /// The new base after an upload; a card sent with a derived FN replaces the stored one (the old version goes to
    /// history), so that every side holds the same.
    func uploaded(_ upload: Upload, to entry: RemoteEntry) -> [StoreChange] {
        let created = upload.target == nil || upload.createdItem
        if created { report.counts.uploaded += 1 } else { report.counts.serverUpdated += 1 }
        var changes: [StoreChange] = []
        var hash = upload.hash
        if upload.addedFN {
            hash = upload.card.contentHash
            changes.append(.saveContact(upload.card, hash: hash, reason: "FN added for \(book.name)"))
        }
        changes.append(
            .recordBase(
                uid: upload.uid, entry: RemoteEntry(href: entry.href, etag: entry.etag), hash: hash, created: created))
        if upload.hadRefusal { changes.append(.clearRefusal(uid: upload.uid)) }
        return changes
    }

    /// A card the server refuses is reported once with the server's reason and remembered, so that it is not an
    /// error on every pass (`refusedHash` is the version sent). A first 412 for an item re-plans it. Anything else
    /// that concerns this item alone is recorded, and the run goes on.
    private func failed(_ error: RemoteError, uid: String, href: String, refusedHash: String? = nil) -> WriteOutcome {
        if case .rejected = error.kind, let refusedHash {
            unsettled.insert(uid)
            report.recordRefusal("\(book.name): \(uid): \(error.message)")
            return .done([.recordRefusal(uid: uid, hash: refusedHash, reason: error.message)])
        }
        guard error.kind == .preconditionFailed, !replanned.contains(uid) else {
            unsettled.insert(uid)
            report.recordError("\(book.name): \(uid): \(error.message)")
            return .done([])
        }
        replanned.insert(uid)
        return .replan(uid: uid, href: href)
    }

    /// Items a 412 turned back, each fetched again and planned through the same path as a listed one; an item gone
    /// meanwhile (or unreadable now) is planned as removed. One fetch each, as a 412 is rare.
    private func replan(_ items: [(uid: String, href: String)]) throws -> [SyncStep] {
        var steps: [SyncStep] = []
        for item in items {
            var refetched: RemoteCard?
            try book.fetch([item.href]) { result in
                if case .success(let card) = result { refetched = card }
            }
            if let refetched {
                steps += try plan(fetched: refetched)
            } else {
                let base = try store.remoteItem(remoteID: remote.id, uid: item.uid)
                steps += try plan(uid: item.uid, base: base, local: try store.contact(uid: item.uid), remote: .removed)
            }
        }
        return steps
    }

    /// The chunk's store changes in one transaction; a dry run changes nothing.
    private func commit(_ changes: [StoreChange]) throws {
        guard !options.dryRun, !changes.isEmpty else { return }
        let runID = try journal?.begin()
        try store.transaction {
            for change in changes { try change.apply(to: store, remoteID: remote.id, runID: runID) }
        }
    }
}

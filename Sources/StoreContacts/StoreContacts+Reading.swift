import ContactStore
import StatusServer
import VCard

// Reading: every call one keyset page of at most 100 rows, or one contact and its page of versions, from the
// read-only connection.
extension StoreContacts {
    public func list(search: String?, after cursor: String?, limit: Int) throws(ContactsError) -> ContactsPage {
        try Self.checkLimit(limit)
        let start = try cursor.map { (text) throws(ContactsError) in try PageCursor.contactCursor(text) }
        return try reading { store in
            let search = search.map(\.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
            let page = try store.contactLines(after: start, limit: limit, search: search)
            let contacts = try page.map { line in
                if let summary = Self.summary(line) { return summary }
                // A line an older store's fill-in has not reached yet: from its card, one at a time.
                guard let contact = try store.contact(uid: line.uid) else {
                    throw ContactStoreError(.corruptRow, "contact \(line.uid) is listed but cannot be read")
                }
                return CardView(text: contact.text, uid: contact.uid).summary(of: contact)
            }
            let next = page.count == limit ? page.last.map { PageCursor.encode($0.cursor) } : nil
            return ContactsPage(contacts: contacts, next: next)
        }
    }

    public func contact(uid: String) throws(ContactsError) -> ContactDetail? {
        try reading { store in
            // A tombstone keeps its last version: what the contact was when it was deleted.
            guard let contact = try store.contact(uid: uid) else { return nil }
            let view = CardView(text: contact.text, uid: uid)
            return ContactDetail(
                summary: view.summary(of: contact), deleted: contact.deleted, fields: view.fields,
                unknown: view.unknown, properties: view.properties,
                remotes: try store.remoteNames(holding: uid))
        }
    }

    public func versions(uid: String, before: Int64?, limit: Int) throws(ContactsError) -> VersionsPage {
        try Self.checkLimit(limit)
        return try reading { store in
            // One more row than asked tells whether there is an older page.
            let rows = try store.history(uid: uid, before: before, limit: min(limit + 1, ContactStore.chunkLimit))
            let entries = Array(rows.prefix(limit))
            var causes = Causes(store: store)
            var versions: [ContactVersion] = []
            // Newest first: the state a change led to is the state before the next newer one, or the contact now.
            var newer: ContactState?
            for entry in entries {
                let after = try newer ?? store.state(after: entry)
                let before = entry.stateBefore
                versions.append(
                    ContactVersion(
                        id: entry.id, recordedAt: entry.recordedAt, kind: entry.kind.rawValue,
                        cause: try causes.cause(of: entry), runID: entry.runID,
                        changes: FieldChanges.between(
                            Self.view(before ?? .live(text: entry.text, hash: entry.hash), uid), Self.view(after, uid)),
                        canRestore: entry.kind != .created && entry.text.count > 0,
                        timeUnsure: try store.timeTrust(ofHistory: entry.id) != .trusted))
                if entry.kind != .archived { newer = before }
            }
            let more = rows.count > limit || (rows.count == limit && limit == ContactStore.chunkLimit)
            return VersionsPage(versions: versions, next: more ? entries.last?.id : nil)
        }
    }

    public func trash(after cursor: String?, limit: Int) throws(ContactsError) -> TrashPage {
        try Self.checkLimit(limit)
        let start = try cursor.map { (text) throws(ContactsError) in try PageCursor.trashCursor(text) }
        return try reading { store in
            let page = try store.trash(after: start, limit: limit)
            var causes = Causes(store: store)
            let contacts = try page.map { trashed in
                // The deletion's own row says what deleted it, in the words every version uses.
                let cause = try store.historyEntry(id: trashed.historyID).map { try causes.cause(of: $0) }
                return TrashedContact(
                    uid: trashed.uid, name: trashed.displayName, deletedAt: trashed.deletedAt,
                    cause: cause ?? "a change on the box", historyID: trashed.historyID)
            }
            let next = page.count == limit ? page.last.map { PageCursor.encode($0.cursor) } : nil
            return TrashPage(contacts: contacts, next: next)
        }
    }

    public func changes(since seq: Int64, limit: Int) throws(ContactsError) -> ChangesPage {
        try Self.checkLimit(limit)
        guard seq >= 0 else { throw ContactsError(status: 400, "since \(seq) is below 0") }
        return try reading { store in
            let rows = try store.changeHeads(since: seq, limit: limit)
            let results = rows.map { ContactChange(seq: $0.changeSeq, uid: $0.uid, deleted: $0.deleted, hash: $0.hash) }
            return ChangesPage(results: results, lastSeq: results.last?.seq ?? seq)
        }
    }

    public func lastChange() throws(ContactsError) -> Int64 {
        try reading { try $0.currentChangeSeq() }
    }

    public func photo(uid: String) throws(ContactsError) -> ContactPhoto? {
        try reading { store in
            guard let contact = try store.contact(uid: uid) else { return nil }
            let card = Card.stored(contact.text, uid: uid)
            // A URL is never fetched: the box does not go where a card points.
            guard let photo = card.first("PHOTO"), let data = BinaryValue(photo),
                let bytes = data.decoded(from: photo, limit: BinaryValue.photoLimit),
                let type = ImageType.of(bytes)
            else { return nil }
            return ContactPhoto(mediaType: type, bytes: bytes)
        }
    }

    /// The summary of a line the store has worked out; nil when it has not.
    static func summary(_ contact: ContactLine) -> ContactSummary? {
        guard let line = contact.line else { return nil }
        return ContactSummary(
            uid: contact.uid, name: contact.displayName, phone: line.phone, email: line.email,
            initials: CardView.initials(contact.displayName), hasPhoto: line.hasPhoto, hash: contact.hash,
            changeSeq: contact.changeSeq, changedAt: contact.changedAt)
    }

    /// The view of a state's card; nil when the contact was not live.
    static func view(_ state: ContactState?, _ uid: String) -> CardView? {
        guard case .live(let text, _)? = state else { return nil }
        return CardView(text: text, uid: uid)
    }

}

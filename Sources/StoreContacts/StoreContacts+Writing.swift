import ContactStore
import StatusServer
import VCard

// Writing: each write is a run of its own, as the command line's edit, delete and restore make them
// (`beginOperation`, the store call with the run, `finishOperation`), so that `undo` takes it back and the next
// sync carries it to the remotes. The run's note and the history's reason name the writer (`WriteNote`). The
// checks (`If-Match`) and the run are one transaction: a sync cannot change the contact between them, and a write
// that fails leaves no run behind.
extension StoreContacts {
    public func write(_ write: ContactWrite) throws(ContactsError) -> WriteOutcome {
        switch write {
        case .put(let uid, let vcard, let ifMatch, let by): try put(uid: uid, vcard: vcard, ifMatch: ifMatch, by: by)
        case .delete(let uid, let ifMatch, let by): try delete(uid: uid, ifMatch: ifMatch, by: by)
        case .restore(let uid, let historyID, let by): try restore(uid: uid, historyID: historyID, by: by)
        }
    }

    public func previewRestore(uid: String, historyID: Int64) throws(ContactsError) -> [FieldChange] {
        try reading { store in
            let entry = try Self.restorableEntry(uid: uid, historyID: historyID, in: store)
            let now = Self.view(try store.currentState(uid: uid), uid)
            return FieldChanges.between(now, CardView(text: entry.text, uid: uid))
        }
    }

    // MARK: The three writes

    private func put(uid: String, vcard: [UInt8], ifMatch: String?, by writer: String) throws(ContactsError)
        -> WriteOutcome
    {
        try Self.checkUID(uid)
        let card = try Self.card(from: vcard, uid: uid)
        return try writing { store in
            let (runID, created) = try store.transaction {
                let existing = try store.contact(uid: uid).flatMap { $0.deleted ? nil : $0 }
                try Self.check(ifMatch: ifMatch, against: existing, uid: uid, needed: existing != nil)
                let runID = try store.beginOperation(.edit, note: WriteNote.note(by: writer, "put \(uid)"))
                try store.upsert(
                    card, reason: WriteNote.reason("edited", by: writer), runID: runID, stampingRevision: true)
                try store.finishOperation(id: runID)
                return (runID, existing == nil)
            }
            let after = try store.contact(uid: uid)
            return WriteOutcome(
                runID: runID, contact: after.map { CardView(text: $0.text, uid: uid).summary(of: $0) },
                created: created)
        }
    }

    private func delete(uid: String, ifMatch: String?, by writer: String) throws(ContactsError) -> WriteOutcome {
        try writing { store in
            try store.transaction {
                guard let existing = try store.contact(uid: uid), !existing.deleted else {
                    throw ContactsError(status: 404, "no contact with UID \(uid)")
                }
                try Self.check(ifMatch: ifMatch, against: existing, uid: uid, needed: true)
                let runID = try store.beginOperation(.delete, note: WriteNote.note(by: writer, "delete \(uid)"))
                try store.delete(uid: uid, reason: WriteNote.reason("deleted", by: writer), runID: runID)
                try store.finishOperation(id: runID)
                return WriteOutcome(runID: runID, contact: nil, created: false)
            }
        }
    }

    private func restore(uid: String, historyID: Int64, by writer: String) throws(ContactsError) -> WriteOutcome {
        try writing { store in
            let (runID, change) = try store.transaction {
                let entry = try Self.restorableEntry(uid: uid, historyID: historyID, in: store)
                let target = ContactState.live(text: entry.text, hash: entry.hash)
                let runID = try store.beginOperation(
                    .restore,
                    note: WriteNote.note(by: writer, "restore \(uid) to the version before change \(historyID)"))
                let change = try store.restore(
                    uid: uid, to: target, reason: WriteNote.reason("restored", by: writer), runID: runID)
                // Nothing to change: thrown, so that the transaction leaves no empty run behind.
                guard let change else {
                    throw ContactsError(
                        status: 409, "contact \(uid) already is the version before change \(historyID)")
                }
                try store.finishOperation(id: runID)
                return (runID, change)
            }
            let after = try store.contact(uid: uid)
            return WriteOutcome(
                runID: runID, contact: after.map { CardView(text: $0.text, uid: uid).summary(of: $0) },
                created: change.action == .revived)
        }
    }

    // MARK: Checks

    /// A UID the store can take from an address: not empty, no control characters.
    static func checkUID(_ uid: String) throws(ContactsError) {
        guard !uid.isEmpty, !uid.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ContactsError(status: 400, "the UID in the address is empty or holds control characters")
        }
    }

    /// `If-Match` against the contact: `needed` when it exists (428 without); the hash it names, or `*`, must be
    /// its current one (412, saying the current one); given for a contact that does not exist, it fails (412).
    static func check(ifMatch: String?, against existing: StoredContact?, uid: String, needed: Bool)
        throws(ContactsError)
    {
        guard let ifMatch else {
            guard !needed else {
                throw ContactsError(
                    status: 428, "If-Match is needed: contact \(uid) exists; send the hash you last saw (its ETag)")
            }
            return
        }
        guard let existing else {
            throw ContactsError(status: 412, "If-Match names a version, but there is no contact \(uid)")
        }
        let hash = Self.tag(ifMatch)
        guard hash == "*" || hash == existing.hash else {
            throw ContactsError(
                status: 412, "contact \(uid) changed since: its hash is now \(existing.hash), not \(hash)")
        }
    }

    /// An entity tag as the hash it names: its quotes and a weak `W/` dropped.
    static func tag(_ header: String) -> String {
        var tag = Substring(header.trimmingWhitespace)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }

    /// The body of a put as one card with the UID `uid`: UTF-8 vCard text holding exactly one card (400 else), whose
    /// UID is `uid` (409 when it names another) or that has none (it then gets `uid`).
    static func card(from body: [UInt8], uid: String) throws(ContactsError) -> Card {
        guard String(validating: body, as: UTF8.self) != nil else {
            throw ContactsError(status: 400, "the body is not UTF-8 text: send one vCard (text/vcard)")
        }
        var reader = CardReader(bytes: body)
        var parsed: ParsedCard
        switch reader.next() {
        case .success(let card)?: parsed = card
        case .failure(let error)?: throw ContactsError(status: 400, "the body is no vCard that can be read: \(error)")
        case nil: throw ContactsError(status: 400, "the body holds no vCard (BEGIN:VCARD ... END:VCARD)")
        }
        guard reader.next() == nil else {
            throw ContactsError(status: 400, "the body holds more than one vCard: send one")
        }
        // The reader gives a card without a UID a fresh one, and says so: that card takes the address's.
        let cardUID = parsed.card.uid ?? ""
        if parsed.repairs.contains("added UID \(cardUID)") {
            parsed.card.setUID(uid)
        } else if cardUID != uid {
            throw ContactsError(
                status: 409, "the card's UID is \(cardUID), not \(uid): the UID is the contact's identity")
        }
        return parsed.card
    }

    /// History row `historyID` of `uid`, when it holds a version to put back: 404 when it is no row of that contact,
    /// 409 when it records a creation (no version before it).
    static func restorableEntry(uid: String, historyID: Int64, in store: ContactStore) throws -> HistoryEntry {
        guard let entry = try store.historyEntry(id: historyID), entry.uid == uid else {
            throw ContactsError(status: 404, "contact \(uid) has no change \(historyID) in its history")
        }
        guard entry.kind != .created, entry.text.count > 0 else {
            throw ContactsError(
                status: 409, "change \(historyID) created contact \(uid): there is no version before it to put back")
        }
        return entry
    }
}

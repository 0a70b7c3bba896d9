import ContactStore
import VCard

/// The forms a card can be sent in that some servers need to keep it intact, learned per remote
/// (`Remote.writeForm`).
enum WriteForm {
    /// With a `REV`: a server seen to re-render (and damage) every card sent without one stored a card with a
    /// well-formed `REV` byte for byte.
    static let rev = "rev"
    /// In vCard 3.0: for a server that keeps only 3.0.
    static let version3 = "3.0"

    /// How a form is said in a message ("with a REV and in vCard 3.0").
    static func words(_ form: Set<String>) -> String {
        var parts: [String] = []
        if form.contains(rev) { parts.append("with a REV") }
        if form.contains(version3) { parts.append("in vCard 3.0") }
        return parts.joined(separator: " and ")
    }
}

extension Upload {
    /// The card in `form` (adding to what it is already sent in): a `REV` where it has none, and vCard 3.0 where the
    /// form or the remote (`version`) asks for it.
    mutating func apply(form: Set<String>, version: String) {
        self.form.formUnion(form)
        if self.form.contains(WriteForm.rev), card.first("REV") == nil { card = card.stampingRevision(revision) }
        card = card.converted(toVersion: self.form.contains(WriteForm.version3) ? "3.0" : version)
    }
}

/// The read-back: what a server stored, where it may differ from what it was sent (`CardDAVAddressBook.written`),
/// compared with it through the content hash, so that rewrites that change nothing (folding, order, letter case,
/// the version) are no damage.
///
/// Where the server lost or changed data, the card is sent once more in each form that may keep it intact (with a
/// `REV`, then in the version the server kept), and the form that worked is remembered for the remote. If the damage
/// stays, the store's version remains the truth: the base records it, and the server's copy stands for it on that
/// remote (`damaged_items`), so the copy is never read back as an edit and never reaches the store or another
/// remote. Either way the damage is said once, in words: in the run's report (`sync`'s summary, the journal, the
/// status page).
extension SyncSession {
    /// What a write's read-back leads to: nil when the server kept what it was sent.
    func checkReadBack(_ upload: Upload, entry: RemoteEntry, stored text: CardText) -> WriteOutcome? {
        let stored: RemoteCard
        switch RemoteCard.read(text, href: entry.href, etag: entry.etag, from: book.name, asBytes: true) {
        case .success(let card): stored = card
        case .failure(let error):
            report.recordNote("\(error.message) as read back after a write; not compared")
            return nil
        }
        let name = upload.card.displayName
        if stored.hash == upload.hash || stored.hash == upload.card.contentHash {
            let form = upload.form.subtracting(writeForm)
            if let damage = upload.damage, !form.isEmpty {
                // Said once, for the card that taught the form; the others of the run went the same way.
                writeForm.formUnion(upload.form)
                report.recordNote(
                    "\(book.name) changed \(name) (UID \(upload.uid)) as it stored it: \(damage). Sent again"
                        + " \(WriteForm.words(form)), it kept the card intact; cards go to \(book.name)"
                        + " \(WriteForm.words(writeForm)) from now on")
            }
            return nil
        }
        let damage = Self.describe(sent: upload.card, stored: stored)
        // A server seen to change what it stores: every write of this run is read back, the one sent again too.
        (book as? ReadsBackWrites)?.readsBackWrites = true
        var again = upload
        again.damage = upload.damage ?? damage
        again.target = RemoteEntry(href: entry.href, etag: entry.etag)
        again.createdItem = upload.createdItem || upload.target == nil
        if !upload.form.contains(WriteForm.rev), upload.card.first("REV") == nil {
            again.apply(form: [WriteForm.rev], version: upload.card.version)
            return .sendAgain(again)
        }
        if !upload.form.contains(WriteForm.version3), upload.card.version != "3.0", stored.card.version == "3.0" {
            again.apply(form: [WriteForm.version3], version: "3.0")
            return .sendAgain(again)
        }
        let message =
            "\(book.name) changed \(name) (UID \(upload.uid)) as it stored it: \(again.damage ?? damage)."
            + " The box keeps its own version, for itself and every other remote, and does not read the server's"
            + " copy back as an edit"
        if (try? store.damage(remoteID: remote.id, uid: upload.uid))??.damage != message {
            report.recordDamage(message)
        }
        var entry = entry
        entry.readBack = nil
        return .done(
            uploaded(upload, to: entry) + [
                .recordDamage(uid: upload.uid, hash: upload.hash, remoteHash: stored.hash, damage: message)
            ])
    }

    /// What the server made of `sent`, in words.
    private static func describe(sent: Card, stored: RemoteCard) -> String {
        let changes = sent.changes(to: stored.card).joined(separator: "; ")
        if let why = stored.unreadable { return "\(changes) (\(why))" }
        return changes.isEmpty ? "it stored another card" : changes
    }
}

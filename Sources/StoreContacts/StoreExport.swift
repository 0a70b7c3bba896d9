import ContactStore
import StatusServer
import VCard

extension StoreContacts {
    public func export(uid: String?, asOf: Int64?) throws(ContactsError) -> any VCardExport {
        guard let uid else {
            return StoreExport(backend: self, source: asOf.map { .asOf(time: $0, seq: 0) } ?? .live(after: nil))
        }
        let text = try reading { store -> CardText? in
            if let asOf {
                guard case .live(let text, _) = try store.state(uid: uid, at: asOf) else { return nil }
                return text
            }
            guard let contact = try store.contact(uid: uid), !contact.deleted else { return nil }
            return contact.text
        }
        guard let text else {
            throw ContactsError(
                status: 404, asOf == nil ? "no contact with UID \(uid)" : "no contact with UID \(uid) at that time")
        }
        return StoreExport(backend: self, cards: [text])
    }
}

/// vCards for a download, a chunk a call: live contacts in name order (a keyset page of at most 100 at a time), or
/// every contact as it was at a time, or one card.
///
/// A chunk holds whole cards up to `ContactStore.chunkBytes`, so cards with photos do not make it huge; a card
/// larger than that alone (a photo of megabytes, up to the reader's 16 MiB) goes in pieces of that size, one chunk
/// each and nothing else in them: the daemon holds 256 KiB of it at a time, never the card whole. Line ends are
/// CRLF, whatever a card no reader understands (kept as it came) had.
///
/// As of a time, the contacts go in the order of their last change (the store's `changes(since:)`, which pages by a
/// keyset the store has a public call for; `forEachContact(asOf:)` walks them in row order but calls back for every
/// one in one go, and cannot be resumed between two chunks of a download). A contact changed while the download
/// runs moves to the end of that order and may come twice: both times as it was at that time, the same bytes, which
/// an import takes as one.
final class StoreExport: VCardExport {
    enum Source {
        case cards
        case live(after: ContactCursor?)
        case asOf(time: Int64, seq: Int64)
    }

    private let backend: StoreContacts
    private var source: Source
    private var pending: [CardText]
    private var nextPending = 0
    /// The card being written, and how much of it is.
    private var current: CardText?
    private var offset = 0
    private var afterCR = false
    private var lastByte: UInt8?
    private var exhausted = false
    /// Contacts read a page: fewer where the last page's cards were large, so that a page holds about a chunk.
    private var pageLimit = ContactStore.chunkLimit

    init(backend: StoreContacts, source: Source) {
        self.backend = backend
        self.source = source
        self.pending = []
    }

    init(backend: StoreContacts, cards: [CardText]) {
        self.backend = backend
        self.source = .cards
        self.pending = cards
        self.exhausted = true
    }

    /// The chunk's buffer, filled again by each call: one allocation for the whole download where the caller
    /// lets go of each chunk before it asks for the next (`ExportStream`), instead of one of 256 KB a call, which
    /// glibc's heap keeps as dirty pages of its own between them.
    private var chunk: [UInt8] = []

    func next() throws(ContactsError) -> [UInt8]? {
        let budget = ContactStore.chunkBytes
        chunk.removeAll(keepingCapacity: true)
        chunk.reserveCapacity(budget + 2)
        while chunk.count < budget {
            if current == nil {
                guard let text = try nextCard() else { break }
                // A whole card, or the next chunk: a large card starts a chunk of its own.
                if !chunk.isEmpty, text.count > budget - chunk.count {
                    nextPending -= 1
                    break
                }
                (current, offset, afterCR, lastByte) = (text, 0, false, nil)
            }
            guard let text = current else { break }
            let count = min(text.count - offset, max(budget - chunk.count, 1))
            if count > 0 {
                let piece = text.bytes(at: offset, count: count)
                guard piece.count == count else {
                    throw ContactsError(status: 500, "the store failed: a card's text could not be read back")
                }
                append(piece)
                offset += count
            }
            if offset >= text.count || count == 0 {
                if lastByte != UInt8(ascii: "\n") { appendCRLF() }
                current = nil
            }
        }
        return chunk.isEmpty ? nil : chunk
    }

    /// Copies `bytes` to the chunk with every line end as CRLF (a lone LF or CR too).
    private func append(_ bytes: [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x0D:
                appendCRLF()
                afterCR = true
                lastByte = 0x0A
                continue
            case 0x0A:
                if !afterCR { appendCRLF() }
            default:
                chunk.append(byte)
            }
            afterCR = false
            lastByte = byte
        }
    }

    private func appendCRLF() {
        chunk.append(0x0D)
        chunk.append(0x0A)
    }

    /// The next card's text: from the page read, or from the next page; nil at the end.
    private func nextCard() throws(ContactsError) -> CardText? {
        // As of a time, a page may hold no contact that was live then: the next is read.
        while nextPending == pending.count {
            pending = []
            nextPending = 0
            guard !exhausted else { return nil }
            try readPage()
        }
        defer { nextPending += 1 }
        return pending[nextPending]
    }

    /// Reads the next page of the source into `pending`.
    private func readPage() throws(ContactsError) {
        let limit = pageLimit
        switch source {
        case .cards:
            exhausted = true
        case .live(let after):
            // A page ends at a chunk's bytes too: a run of photos after small cards is not read all at once.
            var bytes = 0
            let page = try backend.reading { store in
                try store.contacts(
                    after: after, limit: limit,
                    isLast: { (card: (text: CardText, cursor: ContactCursor)) in
                        bytes += card.text.count
                        return bytes >= ContactStore.chunkBytes
                    }, { (text: $0.text, cursor: $0.cursor) })
            }
            if page.count < limit, bytes < ContactStore.chunkBytes { exhausted = true }
            if let last = page.last { source = .live(after: last.cursor) }
            pending = page.map(\.text)
        case .asOf(let time, let seq):
            let (texts, rows, lastSeq) = try backend.reading { store in
                let rows = try store.changes(since: seq, limit: limit)
                let texts = try rows.compactMap { row -> CardText? in
                    // Not changed since `time`: the row is what it was then. Else the history says.
                    if row.createdAt > time { return nil }
                    if row.changedAt <= time { return row.deleted ? nil : row.text }
                    guard case .live(let text, _) = try store.state(uid: row.uid, at: time) else { return nil }
                    return text
                }
                return (texts, rows.count, rows.last?.changeSeq ?? seq)
            }
            if rows < limit { exhausted = true }
            source = .asOf(time: time, seq: lastSeq)
            pending = texts
        }
        let bytes = pending.reduce(0) { $0 + $1.count }
        pageLimit = max(
            1, min(ContactStore.chunkLimit, ContactStore.chunkBytes / max(1, bytes / max(1, pending.count))))
    }
}

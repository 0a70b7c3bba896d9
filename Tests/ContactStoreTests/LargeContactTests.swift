import ContactStore
import SQLite
import TestSupport
import Testing
import VCard

/// A contact with a photo of megabytes: its text goes to `texts` and back in pieces (schema 8), through every path
/// that writes, copies or reads it.
@Suite("Large contacts")
struct LargeContactTests {
    /// A card with a PHOTO of `photoBytes` bytes (base64, folded at 75 octets as RFC 6350 §3.2 says), the bytes
    /// varying with `seed`.
    static func largeText(uid: String, name: String, photoBytes: Int, seed: UInt8) -> String {
        var photo = [UInt8](repeating: 0, count: photoBytes)
        for index in photo.indices { photo[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 11) ^ seed }
        let line = Array(("PHOTO:data:image/jpeg;base64," + base64(photo)).utf8)
        var folded: [UInt8] = []
        folded.reserveCapacity(line.count + line.count / 74 * 3)
        var start = 0
        while start < line.count {
            // The first line holds 75 octets; each continuation, a space and 74.
            let end = min(line.count, start + (start == 0 ? 75 : 74))
            if start > 0 { folded += [0x0D, 0x0A, 0x20] }
            folded += line[start..<end]
            start = end
        }
        let head = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:\(uid)\r\nFN:\(name)\r\n"
        return head + String(decoding: folded, as: UTF8.self) + "\r\nEND:VCARD\r\n"
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(bytes.count, index + 3)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)] : 0x3D)
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func largeCard(uid: String = "big", name: String = "Big Photo", seed: UInt8 = 0) -> Card {
        Card.stored(largeText(uid: uid, name: name, photoBytes: 3 << 19, seed: seed), uid: uid)
    }

    static func bytes(_ text: CardText) -> [UInt8] { text.withBytes { Array($0) } }

    /// The stored text is `card` but for its REV: the same hash, and the photo's bytes the same.
    static func sameContact(_ text: CardText, as card: Card) -> Bool {
        let stored = Card.stored(text, uid: card.uid ?? "")
        return stored.contentHash == card.contentHash && stored.first("PHOTO") == card.first("PHOTO")
            && stored.first("REV") != nil
    }

    @Test("a 2 MB contact is stored, read back byte for byte, updated with its old version kept in history")
    func storeReadUpdate() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let first = Self.largeCard()
        let written = Self.bytes(first.serializedText())
        #expect(written.count > 2 << 20)
        #expect(try store.upsert(first, reason: "test"))
        let stored = try #require(try store.contact(uid: "big"))
        #expect(Self.bytes(stored.text) == written)
        #expect(stored.hash == first.contentHash)
        // The same card again is no change.
        #expect(try !store.upsert(first, reason: "test"))

        let second = Self.largeCard(seed: 1)
        #expect(try store.upsert(second, reason: "replaced"))
        #expect(Self.bytes(try #require(try store.contact(uid: "big")).text) == Self.bytes(second.serializedText()))
        let updated = try #require(try store.history(uid: "big").first)
        #expect(updated.kind == .updated)
        #expect(Self.bytes(updated.text) == written)
        #expect(updated.vcard.utf8.count == written.count)
        // The replaced text went with its row: one for the contact, one for its history copy.
        #expect(try fixture.rawDatabase().scalarInt64("SELECT count(*) FROM texts") == 2)
        #expect(try store.check() == [])
    }

    @Test("a large contact is deleted, restored, undone, and its history pruned, its text following each step")
    func deleteRestoreUndo() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let card = Self.largeCard()
        let written = Self.bytes(card.serializedText())
        try store.upsert(card, reason: "test")
        let beforeDelete = fixture.clock.millis
        #expect(try store.delete(uid: "big", reason: "deleted"))
        let tombstone = try #require(try store.contact(uid: "big"))
        #expect(tombstone.deleted && Self.bytes(tombstone.text) == written)
        let deleted = try #require(try store.history(uid: "big").first)
        #expect(deleted.kind == .deleted && Self.bytes(deleted.text) == written)

        let restore = try store.restore(asOf: beforeDelete, note: "test")
        #expect(restore.revived == 1)
        // A restore is a change of the store's, stamped with a REV (`Card.stampingRevision`): the same contact,
        // its photo byte for byte, with a new REV line.
        let revived = try #require(try store.contact(uid: "big"))
        #expect(!revived.deleted && Self.sameContact(revived.text, as: card))
        #expect(try store.check() == [])

        let undo = try store.undo(run: try #require(restore.runID))
        #expect(undo.deleted == 1)
        #expect(try store.contact(uid: "big")?.deleted == true)

        _ = try store.restore(uid: "big", to: try #require(deleted.stateBefore), reason: "by hand", runID: nil)
        #expect(Self.sameContact(try #require(try store.contact(uid: "big")).text, as: card))

        fixture.clock.advance(by: 1_000)
        try store.pruneHistory(ContactStore.Retention(maxAge: .milliseconds(1), maxVersions: nil))
        #expect(try store.history(uid: "big").isEmpty)
        // Only the contact's own text is left.
        #expect(try fixture.rawDatabase().scalarInt64("SELECT count(*) FROM texts") == 1)
        #expect(try store.check() == [])
    }

    @Test("a large conflict loser is archived whole, and a small contact's row stays TEXT in contacts.vcard")
    func archiveAndSmallRows() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let loser = Self.largeCard(uid: "other", seed: 2)
        let text = loser.serializedText()
        try store.archive(
            uid: "other", text: text, hash: loser.contentHash, reason: "conflict-lost:test", remoteID: nil)
        let archived = try #require(try store.history(uid: "other").first)
        #expect(archived.kind == .archived && Self.bytes(archived.text) == Self.bytes(text))

        try store.upsert(try makeCard(uid: "small", name: "Small"), reason: "test")
        try store.upsert(try makeCard(uid: "small", name: "Smaller"), reason: "test")
        let raw = try fixture.rawDatabase()
        #expect(try raw.scalarString("SELECT typeof(vcard) FROM contacts WHERE uid = 'small'") == "text")
        #expect(
            try raw.scalarInt64("SELECT count(*) FROM history WHERE uid = 'small' AND typeof(vcard) <> 'text'") == 0)
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE text_id IS NOT NULL") == 0)
        #expect(try store.contact(uid: "small")?.displayName == "Smaller")
        #expect(try store.check() == [])
    }

    @Test("a large text written before schema 8, in the row's own vcard, is read and copied to history in pieces")
    func largeTextInItsRow() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "legacy", name: "Legacy"), reason: "test")
        let legacy = Self.largeText(uid: "legacy", name: "Legacy", photoBytes: 100_000, seed: 3)
        try fixture.rawDatabase().run("UPDATE contacts SET vcard = ? WHERE uid = 'legacy'", legacy)
        #expect(Self.bytes(try #require(try store.contact(uid: "legacy")).text) == Array(legacy.utf8))

        try store.upsert(try makeCard(uid: "legacy", name: "Renamed"), reason: "test")
        let replaced = try #require(try store.history(uid: "legacy").first)
        #expect(Self.bytes(replaced.text) == Array(legacy.utf8))
        #expect(try fixture.rawDatabase().scalarInt64("SELECT count(*) FROM history WHERE text_id IS NOT NULL") == 1)
    }
}

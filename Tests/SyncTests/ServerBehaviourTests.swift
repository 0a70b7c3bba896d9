import ContactStore
import Foundation
import Remotes
import SystemSupport
import TestSupport
import Testing
import VCard

@testable import Sync

@Suite("What real servers do: deletions left out of a delta, refused cards")
struct ServerBehaviourTests {
    @Test(
        "a card this box created and someone deleted before the next sync is deleted here, on a server that leaves it out of the changes"
    )
    func createdThenDeletedOnTheServer() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook(omitsCreatedThenDeleted: true)
        _ = try fixture.store.importChunk((0..<20).map { try makeCard("c\($0)", "Contact \($0)") })
        let first = try fixture.sync(book)
        #expect(first.counts.uploaded == 20)

        book.remove("c7.vcf")
        let second = try fixture.sync(book)
        #expect(second.counts.deleted == 1)
        #expect(try fixture.store.contact(uid: "c7")?.deleted == true)
        let remote = try #require(try fixture.store.remote(named: "fake"))
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 19)
        #expect(try fixture.localContents() == book.contents)

        // Later deletions still arrive as deletions, and a sync with nothing to do deletes nothing.
        book.remove("c8.vcf")
        #expect(try fixture.sync(book).counts.deleted == 1)
        #expect(try fixture.sync(book).counts == SyncCounts())
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("the check needs the created items: what this box did not create is not taken for deleted")
    func onlyCreatedItemsAreChecked() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook(omitsCreatedThenDeleted: true)
        book.put(cardText("r1", "Remote one"), at: "r1.vcf")
        _ = try fixture.store.importChunk([try makeCard("l1", "Local one")])
        try fixture.sync(book)
        book.put(cardText("r2", "Remote two"), at: "r2.vcf")
        let report = try fixture.sync(book)
        #expect(report.counts.deleted == 0)
        #expect(report.counts.downloaded == 1)
        #expect(Set(try fixture.localContents().keys) == ["r1", "r2", "l1"])
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a card the server refuses is reported once with the reason, is no error, and is sent again once edited")
    func refusedCardReportedOnce() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        _ = try fixture.store.importChunk([try makeCard("ok", "Fine"), try makeCard("bad", "Refused")])
        book.refuse["bad.vcf"] = RemoteError(.rejected(status: 415), "PUT /bad.vcf: 415 Unsupported Media Type")

        let first = try fixture.sync(book)
        #expect(first.outcome == .ok)
        #expect(first.counts.uploaded == 1)
        #expect(first.counts.errors == 0)
        #expect(first.refused.count == 1)
        #expect(first.refused.first?.contains("415 Unsupported Media Type") == true)
        let remoteID = try #require(try fixture.store.remote(named: "fake")).id
        #expect(try fixture.store.refusals(remoteID: remoteID).map(\.uid) == ["bad"])

        let creates = book.calls["create"] ?? 0
        let second = try fixture.sync(book)
        #expect(second.refused.isEmpty)
        #expect(second.stillRefused == 1)
        #expect(second.counts.errors == 0)
        #expect(book.calls["create"] ?? 0 == creates)  // the same version is not sent again

        try fixture.store.upsert(try makeCard("bad", "Refused", note: "fixed"), reason: "edited")
        book.refuse["bad.vcf"] = nil
        let third = try fixture.sync(book)
        #expect(third.counts.uploaded == 1)
        #expect(try fixture.store.refusals(remoteID: remoteID).isEmpty)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a card without FN that a server refuses is sent again with an FN made from its EMAIL, and noted")
    func derivedFNOnRefusal() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.refusesCardsWithoutFN = true
        var reader = CardReader(
            text: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:mail-only\r\nEMAIL:ada@example.org\r\nEND:VCARD\r\n")
        let parsed = try #require(try reader.next()?.get())
        #expect(parsed.card.formattedName == nil)  // kept without an invented FN
        _ = try fixture.store.importChunk([parsed.card])

        let report = try fixture.sync(book)
        #expect(report.counts.uploaded == 1)
        #expect(report.refused.isEmpty && report.counts.errors == 0)
        #expect(report.notes.first?.contains("added FN \"ada@example.org\" from EMAIL") == true)
        #expect(book.cards["mail-only.vcf"]?.formattedName == "ada@example.org")
        // The store takes the card with its FN too, the version without it in history: every side is equal.
        #expect(try fixture.localContents() == book.contents)
        #expect(try fixture.store.history(uid: "mail-only").first?.reason == "FN added for fake")
        #expect(try fixture.sync(book).counts == SyncCounts())
    }

    @Test("two server cards with one UID and different content are both kept, the second under a derived UID")
    func duplicateUIDsBothKept() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.put(cardText("same", "Anna First"), at: "a.vcf")
        book.put(cardText("same", "Anna Second"), at: "b.vcf")
        let first = try fixture.sync(book)
        #expect(first.counts.downloaded == 2)
        #expect(first.counts.errors == 0)
        #expect(first.notes.count == 1)
        #expect(first.notes.first?.contains("a.vcf and b.vcf") == true)
        var contacts: [String: String] = [:]
        try fixture.store.forEachContact { contacts[$0.displayName] = $0.uid }
        #expect(Set(contacts.keys) == ["Anna First", "Anna Second"])
        #expect(contacts["Anna First"] == "same")
        let derived = try #require(contacts["Anna Second"])
        #expect(derived.hasPrefix("contactbox-"))

        // Stable: nothing moves on the next runs, on either side.
        let second = try fixture.sync(book)
        #expect(second.counts == SyncCounts())
        #expect(book.items.count == 2)

        // An edit of the second on the server reaches its own contact, not the first.
        book.put(cardText("same", "Anna Second", note: "edited"), at: "b.vcf")
        let third = try fixture.sync(book)
        #expect(third.counts.updated == 1)
        #expect(try fixture.store.contact(uid: "same")?.vcard.contains("edited") == false)
        #expect(try fixture.store.contact(uid: derived)?.vcard.contains("NOTE:edited") == true)
    }
}

@Suite("Cards no reader understands are carried as they are")
struct OpaqueItemTests {
    /// No END:VCARD: the one thing a lenient reader still cannot read.
    static let broken = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:broken-1\r\nFN:Half A Card\r\nTEL:+49 30 1234\r\n"

    @Test("an unreadable card is kept byte for byte, listed as unreadable, copied to the other remotes, and no error")
    func unreadableCardTravels() throws {
        let fixture = try SyncFixture()
        let cloud = FakeAddressBook(name: "cloud")
        let nas = FakeAddressBook(name: "nas", usesTokens: false)
        cloud.put(Self.broken, at: "broken.vcf")
        cloud.put(cardText("fine", "Fine Person"), at: "fine.vcf")

        let first = try fixture.sync(cloud)
        #expect(first.counts.downloaded == 2)
        #expect(first.counts.errors == 0)
        #expect(first.notes.count == 1)
        #expect(first.notes.first?.contains("broken.vcf cannot be read") == true)
        #expect(
            first.notes.first?.contains(#"it holds "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:broken-1\r\nFN:Half A Card"#)
                == true,
            "what the server holds, not only why it does not read: \(first.notes.first ?? "")")
        let stored = try #require(try fixture.store.contact(uid: "broken-1"))
        #expect(stored.vcard == Self.broken)
        #expect(stored.displayName == "Half A Card (unreadable)")
        #expect(try fixture.store.check().isEmpty)

        let toNas = try fixture.sync(nas)
        #expect(toNas.counts.uploaded == 2)
        #expect(nas.items["broken-1.vcf"]?.text == Self.broken)

        // Not an error on every pass: the next syncs have nothing to say.
        let again = try fixture.sync(cloud)
        #expect(again.counts == SyncCounts())
        #expect(again.notes.isEmpty)
        #expect(try fixture.sync(nas).counts == SyncCounts())
    }

    @Test("an unreadable card without UID gets a stable identity from its place")
    func identityFromHref() throws {
        let fixture = try SyncFixture()
        let cloud = FakeAddressBook(name: "cloud")
        cloud.put("BEGIN:VCARD\r\nFN:No End And No UID\r\n", at: "odd.vcf")
        try fixture.sync(cloud)
        try fixture.sync(cloud)
        #expect(try fixture.store.count() == 1)
        var uids: [String] = []
        try fixture.store.forEachContact { uids.append($0.uid) }
        #expect(uids.first?.hasPrefix("contactbox-") == true)
    }

    @Test("a folder file that holds no readable card is carried as it is, bytes that are not UTF-8 included")
    func unreadableFile() throws {
        let fixture = try SyncFixture()
        let folder = try TemporaryDirectory()
        let nas = try VdirAddressBook(name: "nas", folder: folder.path, createIfMissing: false)
        let bytes: [UInt8] = Array("BEGIN:VCARD\r\nUID:latin\r\nFN:Ren".utf8) + [0xE9] + Array("e\r\n".utf8)
        #expect(FileManager.default.createFile(atPath: folder.path + "/latin.vcf", contents: Data(bytes)))
        let report = try fixture.engine.sync(
            nas, remote: fixture.store.row(for: nas, kind: .vdir, url: folder.path), options: SyncOptions())
        #expect(report.counts.downloaded == 1)
        #expect(report.counts.errors == 0)
        let stored = try #require(try fixture.store.contact(uid: "latin"))
        // Its bytes read as Latin-1, which maps every byte to a character: the FN line reads.
        #expect(stored.displayName == "Ren\u{E9}e (unreadable)")
        #expect(stored.vcard.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } == bytes)
    }
}

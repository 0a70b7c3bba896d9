import ContactStore
import SystemSupport
import Testing

@testable import Sync

/// A server that answers a sync token it forgot with every item as changed and no removal, where RFC 6578 asks it to
/// refuse the token (`SyncSession+WholeBookDelta.swift`), and the full comparison `sync --full` asks for. The
/// forgetful server is `FakeAddressBook.forgetsTokens`, a stand-in: the real servers of the suites refuse such a
/// token (`Docs/servers.md`).
@Suite("A server that forgets its sync tokens, and the full comparison")
struct ForgottenTokenTests {
    /// A remote of `count` cards, synced once into a fresh store.
    func syncedBook(_ count: Int, forgetsTokens: Bool = false) throws -> (SyncFixture, FakeAddressBook) {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        book.forgetsTokens = forgetsTokens
        for index in 0..<count { book.put(cardText("c\(index)", "Card \(index)"), at: "c\(index).vcf") }
        #expect(try fixture.sync(book).counts.downloaded == count)
        return (fixture, book)
    }

    @Test("a card deleted on a server that lists every card for any token is deleted here by the next sync")
    func deletionOnForgetfulServer() throws {
        let (fixture, book) = try syncedBook(4, forgetsTokens: true)
        // Every card listed again, none changed: one listing, nothing to do.
        #expect(try fixture.sync(book).counts == SyncCounts())
        #expect(book.calls["changes"] == 2)

        book.remove("c2.vcf")
        let report = try fixture.sync(book)
        #expect(report.outcome == .ok)
        #expect(report.counts.deleted == 1)
        // The delta, then the whole book.
        #expect(book.calls["changes"] == 4)
        #expect(Set(try fixture.localContents().keys) == ["c0", "c1", "c3"])
        let history = try fixture.store.history(uid: "c2")
        #expect(history.first?.kind == .deleted)
        #expect(history.first?.vcard.contains("FN:Card 2") == true)
    }

    @Test("a delta that names half the book or more and no removal is checked by a full listing, which deletes nothing")
    func largeHonestDelta() throws {
        let (fixture, book) = try syncedBook(4)
        for index in 0..<2 { book.put(cardText("c\(index)", "Card \(index)", note: "edited"), at: "c\(index).vcf") }
        let report = try fixture.sync(book)
        #expect(report.counts.updated == 2)
        #expect(report.counts.deleted == 0)
        #expect(book.calls["changes"] == 3)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("a delta with a removal, or that names fewer than half the book, is taken as it is: one listing")
    func ordinaryDeltas() throws {
        let (fixture, book) = try syncedBook(6)
        book.put(cardText("c0", "Card 0", note: "edited"), at: "c0.vcf")
        #expect(try fixture.sync(book).counts.updated == 1)
        #expect(book.calls["changes"] == 2)

        for index in 1..<5 { book.put(cardText("c\(index)", "Card \(index)", note: "edited"), at: "c\(index).vcf") }
        book.remove("c5.vcf")
        let report = try fixture.sync(book)
        #expect(report.counts.updated == 4)
        #expect(report.counts.deleted == 1)
        #expect(book.calls["changes"] == 3)
        #expect(try fixture.localContents() == book.contents)
    }

    @Test("the box's own uploads, named by the next delta, are no sign of a forgetful server: one listing")
    func ownUploads() throws {
        let fixture = try SyncFixture()
        let book = FakeAddressBook()
        for index in 0..<2 { book.put(cardText("r\(index)", "Remote \(index)"), at: "r\(index).vcf") }
        _ = try fixture.store.importChunk(try (0..<6).map { try makeCard("l\($0)", "Local \($0)") })
        #expect(try fixture.sync(book).counts.uploaded == 6)
        #expect(try fixture.sync(book).counts == SyncCounts())
        #expect(book.calls["changes"] == 2)
    }

    @Test("a full comparison notices a deletion that the changes since the token miss")
    func fullCheckFindsMissedDeletion() throws {
        let (fixture, book) = try syncedBook(4)
        book.removeUntracked("c1.vcf")
        #expect(try fixture.sync(book).counts == SyncCounts())
        #expect(try fixture.localContents().keys.contains("c1"))

        var options = SyncOptions()
        options.fullCheck = true
        let report = try fixture.sync(book, options)
        #expect(report.outcome == .ok)
        #expect(report.counts.deleted == 1)
        #expect(try fixture.localContents() == book.contents)
        #expect(try fixture.store.history(uid: "c1").first?.kind == .deleted)
    }
}

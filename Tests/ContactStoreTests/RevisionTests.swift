import ContactStore
import Testing
import VCard

/// `conflict = "newest"` compares `REV`: a change made on the box carries the moment it was made, whatever `REV` the
/// card came with.
@Suite("A change made on the box is dated by its REV")
struct RevisionTests {
    static let old = "REV:20200101T000000Z"

    @Test("an edit gets the time of the change as its REV; a save that changes no content keeps the card as it was")
    func editIsDated() throws {
        let fixture = try StoreFixture()
        try fixture.store.upsert(try makeCard(uid: "e", name: "Eva", extraLines: [Self.old]), reason: "imported")
        let edited = try makeCard(uid: "e", name: "Eva", note: "new number", extraLines: [Self.old])
        #expect(try fixture.store.upsert(edited, reason: "edited", stampingRevision: true))
        let stored = try #require(try fixture.store.contact(uid: "e"))
        let rev = Card.revision(milliseconds: stored.changedAt)
        #expect(stored.vcard.contains("REV:\(rev)\r\n"))
        #expect(!stored.vcard.contains("20200101"))
        #expect(stored.hash == edited.contentHash, "REV is no content")

        let sameContent = try makeCard(uid: "e", name: "Eva", note: "new number", extraLines: ["REV:20210101T000000Z"])
        try fixture.store.upsert(sameContent, reason: "edited", stampingRevision: true)
        #expect(try fixture.store.contact(uid: "e")?.vcard.contains("REV:20210101T000000Z") == true)
    }

    @Test("import --update and a restore date what they write by the time of the change")
    func updateAndRestoreAreDated() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.importChunk([try makeCard(uid: "u", name: "Udo", extraLines: [Self.old])])
        _ = try fixture.store.importChunk(
            [try makeCard(uid: "u", name: "Udo", note: "edited export", extraLines: [Self.old])], updating: true)
        let updated = try #require(try fixture.store.contact(uid: "u"))
        #expect(updated.vcard.contains("REV:\(Card.revision(milliseconds: updated.changedAt))\r\n"))

        let version = try #require(try fixture.store.history(uid: "u").first { $0.kind == .updated })
        _ = try fixture.store.restore(
            uid: "u", to: .live(text: version.text, hash: version.hash), reason: "restored", runID: nil)
        let restored = try #require(try fixture.store.contact(uid: "u"))
        #expect(restored.hash == version.hash)
        #expect(restored.vcard.contains("REV:\(Card.revision(milliseconds: restored.changedAt))\r\n"))
    }

    @Test("REV is written in the basic form both vCard versions read, and replaces every REV the card had")
    func revisionText() throws {
        #expect(Card.revision(milliseconds: 1_764_346_500_000) == "20251128T161500Z")
        let card = try makeCard(uid: "x", name: "X", extraLines: [Self.old, "REV:2019-01-01"])
        let stamped = card.stampingRevision("20261128T161500Z")
        #expect(stamped.properties.filter { $0.isNamed("REV") }.map(\.value) == ["20261128T161500Z"])
    }
}

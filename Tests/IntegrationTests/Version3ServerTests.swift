import ContactStore
import Foundation
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

/// 4.0 cards through a server the client writes 3.0 to (Xandikos advertises no 4.0): written in the 3.0 forms,
/// kept by the server, and read by a second box as the same cards.
@Suite("4.0 cards through a server written in 3.0", .serialized, .timeLimit(.minutes(5)))
struct Version3ServerTests {
    static let group = vcard4(
        "v3-group", "Chess club", "KIND:group", "MEMBER:urn:uuid:v3-photo-typed", "MEMBER:urn:uuid:v3-photo-escaped")
    static let typed = vcard4("v3-photo-typed", "Typed Photo", "PHOTO:data:image/png;base64,\(TestPhotos.png)")
    static let escaped = vcard4("v3-photo-escaped", "Escaped Photo", "PHOTO;TYPE=PNG:data:base64\\,\(TestPhotos.png)")

    static var kinds: [TestServerKind] { TestServerKind.available.filter { $0 == .xandikos } }

    @Test("a group and two forms of a 4.0 photo reach a second box intact", arguments: kinds)
    func groupAndPhotos(kind: TestServerKind) throws {
        let fixture = try ServerSyncFixture(kind)
        #expect(fixture.book.writeVersion == "3.0")
        let cards = try [Self.group, Self.typed, Self.escaped].map(parsedCard)
        _ = try fixture.store.importChunk(cards)
        let up = try fixture.sync()
        #expect(up.counts.uploaded == 3, "\(up.errors) \(up.refused)")

        let held = try fixture.server.items(version: nil).map(\.vcard).joined()
        #expect(held.contains("X-ADDRESSBOOKSERVER-KIND:group"))
        #expect(held.contains("X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:v3-photo-typed"))
        #expect(!held.contains("TYPE=;") && !held.contains("TYPE=:"))

        let second = try fixture.secondBox()
        let down = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(down.counts.downloaded == 3)
        #expect(try ServerSyncFixture.contents(of: second.store) == fixture.localContents())

        let stored = try #require(try second.store.contact(uid: "v3-group"))
        let group = try parsedCard(stored.vcard).converted(toVersion: "4.0")
        #expect(group.first("KIND")?.value == "group")
        #expect(
            group.properties.filter { $0.isNamed("MEMBER") }.map(\.value) == [
                "urn:uuid:v3-photo-typed", "urn:uuid:v3-photo-escaped",
            ])
        for uid in ["v3-photo-typed", "v3-photo-escaped"] {
            let stored = try #require(try second.store.contact(uid: uid))
            let photo = try #require(try parsedCard(stored.vcard).converted(toVersion: "4.0").first("PHOTO"))
            #expect(photo.value == "data:image/png;base64,\(TestPhotos.png)", "\(uid)")
        }
        // Nothing looks changed to either box afterwards.
        #expect(try fixture.sync().counts == SyncCounts())
    }
}

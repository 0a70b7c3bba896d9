import ContactStore
import StatusServer
import Testing
import VCard

@testable import StoreContacts

@Suite("Contacts for the page: photos and downloads")
struct PhotoAndExportTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let gif = Array("GIF87a".utf8) + [1, 0, 1, 0]
    static let webp = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WEBPVP8 ".utf8)

    @Test("a photo is given when its bytes are JPEG, PNG, GIF or WebP, whatever the card claims; never else")
    func photos() throws {
        let fixture = try BackendFixture()
        func photoCard(_ uid: String, _ photo: String) -> String {
            vcard(["VERSION:4.0", "UID:\(uid)", "FN:\(uid)", photo])
        }
        try fixture.importCards([
            Cards.ada, Cards.bob,
            photoCard("png", "PHOTO:data:image/png;base64,\(base64(Self.png))"),
            photoCard("gif-claims-jpeg", "PHOTO:data:image/jpeg;base64,\(base64(Self.gif))"),
            vcard(["VERSION:3.0", "UID:webp", "FN:webp", "PHOTO;ENCODING=b:\(base64(Self.webp))"]),
            photoCard("url", "PHOTO:https://example.org/ada.jpg"),
            photoCard("html", "PHOTO:data:image/jpeg;base64,\(base64(Array("<html><script>x</script>".utf8)))"),
            photoCard("garbage", "PHOTO:data:image/jpeg;base64,!!!not base64!!!"),
            photoCard("no-photo", "NOTE:none"),
        ])
        #expect(try fixture.backend.photo(uid: "apple-ada") == ContactPhoto(mediaType: "image/jpeg", bytes: jpegBytes))
        #expect(try fixture.backend.photo(uid: "png") == ContactPhoto(mediaType: "image/png", bytes: Self.png))
        #expect(try fixture.backend.photo(uid: "gif-claims-jpeg")?.mediaType == "image/gif")
        #expect(try fixture.backend.photo(uid: "webp") == ContactPhoto(mediaType: "image/webp", bytes: Self.webp))
        for uid in ["v4-bob", "url", "html", "garbage", "no-photo", "never-seen"] {
            #expect(try fixture.backend.photo(uid: uid) == nil, "\(uid)")
        }
        let page = try fixture.backend.list(search: nil, after: nil, limit: 100)
        #expect(
            Set(page.contacts.filter(\.hasPhoto).map(\.uid)) == ["apple-ada", "png", "gif-claims-jpeg", "webp"])
    }

    @Test("a large photo is read from its spool file; one over 4 MiB is refused")
    func largePhotos() throws {
        let fixture = try BackendFixture()
        let large = jpegBytes + [UInt8](repeating: 0x5A, count: 300_000)
        let tooLarge = jpegBytes + [UInt8](repeating: 0x5A, count: BinaryValue.photoLimit)
        try fixture.importCards([
            vcard(["VERSION:3.0", "UID:large", "FN:Large", "PHOTO;ENCODING=b;TYPE=JPEG:\(base64(large))"]),
            vcard(["VERSION:4.0", "UID:too-large", "FN:Too large", "PHOTO:data:image/jpeg;base64,\(base64(tooLarge))"]),
        ])
        #expect(try fixture.backend.photo(uid: "large")?.bytes == large)
        #expect(try fixture.backend.photo(uid: "too-large") == nil)
        let detail = try #require(try fixture.backend.contact(uid: "large"))
        #expect(detail.properties.first { $0.name == "PHOTO" }?.dataBytes == large.count)
        #expect(detail.summary.hasPhoto)
    }

    @Test("an export of every contact comes in chunks of whole cards, CRLF, each contact once")
    func exportAll() throws {
        let fixture = try BackendFixture()
        let photo = jpegBytes + [UInt8](repeating: 0x33, count: 400_000)
        var texts = (0..<240).map {
            Cards.plain(uid: "p\($0)", name: "Person \($0)", extra: ["NOTE:\(String(repeating: "n", count: 900))"])
        }
        texts.append(
            vcard(["VERSION:3.0", "UID:photo", "FN:Photo person", "PHOTO;ENCODING=b;TYPE=JPEG:\(base64(photo))"]))
        try fixture.importCards(texts + [Cards.ada, Cards.bob])
        try fixture.store.delete(uid: "p7", reason: "deleted")

        let export = try fixture.backend.export(uid: nil, asOf: nil)
        var all: [UInt8] = []
        var chunks = 0
        var largest = 0
        var betweenCards = true
        while let chunk = try export.next() {
            chunks += 1
            largest = max(largest, chunk.count)
            // A chunk starts a card exactly when the one before ended one: only a large card goes in pieces.
            #expect(chunk.starts(with: Array("BEGIN:VCARD\r\n".utf8)) == betweenCards)
            betweenCards = chunk.reversed().starts(with: Array("END:VCARD\r\n".utf8).reversed())
            all += chunk
        }
        #expect(betweenCards)
        #expect(try export.next() == nil)
        #expect(chunks > 3)
        #expect(largest <= ContactStore.chunkBytes + 2)
        #expect(!all.indices.contains { all[$0] == 0x0A && ($0 == 0 || all[$0 - 1] != 0x0D) })
        let uids = try cards(all).compactMap(\.uid)
        #expect(uids.count == 242)
        #expect(Set(uids).count == 242)
        #expect(!uids.contains("p7"))
        let photoCard = try #require(try cards(all).first { $0.uid == "photo" })
        #expect(photoCard.first("PHOTO")?.valueCount == base64(photo).utf8.count)
    }

    @Test("an export of one contact is its card; of one that is not there, a 404")
    func exportOne() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace])
        let export = try fixture.backend.export(uid: "google-grace", asOf: nil)
        let bytes = try #require(try export.next())
        #expect(try export.next() == nil)
        #expect(bytes == Array(try #require(try fixture.store.contact(uid: "google-grace")).vcard.utf8))
        #expect(throws: ContactsError(status: 404, "no contact with UID nobody")) {
            try fixture.backend.export(uid: "nobody", asOf: nil)
        }
    }

    @Test("an export writes CRLF line ends, also for a card no reader understands, kept as it came")
    func exportLineEnds() throws {
        let fixture = try BackendFixture()
        let odd = "BEGIN:VCARD\nVERSION:3.0\nUID:odd\nFN:Odd\rNOTE:lone CR\nEND:VCARD"
        try fixture.store.upsert(Card(opaque: odd, uid: "odd"), reason: "test")
        let export = try fixture.backend.export(uid: "odd", asOf: nil)
        let bytes = try #require(try export.next())
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:odd\r\nFN:Odd\r\nNOTE:lone CR\r\nEND:VCARD\r\n")
    }

    @Test("an export as of a time has the contacts as they were then")
    func exportAsOf() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada, Cards.grace, Cards.plain(uid: "keep", name: "Kept")])
        let moment = fixture.clock.millis
        try fixture.syncCard(Cards.grace.replacing("FN:Grace Hopper", with: "FN:Amazing Grace"), remote: "google")
        try fixture.store.delete(uid: "apple-ada", reason: "deleted")
        try fixture.importCards([Cards.bob])

        let export = try fixture.backend.export(uid: nil, asOf: moment)
        var all: [UInt8] = []
        while let chunk = try export.next() { all += chunk }
        let then = try cards(all)
        #expect(Set(then.compactMap(\.uid)) == ["apple-ada", "google-grace", "keep"])
        #expect(then.count == 3)
        #expect(then.first { $0.uid == "google-grace" }?.displayName == "Grace Hopper")

        let one = try fixture.backend.export(uid: "google-grace", asOf: moment)
        #expect(try cards(try #require(try one.next())).first?.displayName == "Grace Hopper")
        #expect(throws: ContactsError.self) { try fixture.backend.export(uid: "v4-bob", asOf: moment) }
    }
}

import ContactStore
import StatusServer
import SystemSupport
import TestSupport
import VCard

@testable import StoreContacts

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// A clock that moves one millisecond per reading, so every timestamp is distinct and predictable.
final class TestClock: @unchecked Sendable {
    private(set) var millis: Int64 = 1_700_000_000_000

    func now() -> Int64 {
        millis += 1
        return millis
    }
}

/// A fresh store in its own folder, written through the store's own calls, and the backend over it.
struct BackendFixture {
    let directory: TemporaryDirectory
    let clock = TestClock()
    let store: ContactStore
    let backend: StoreContacts

    var path: String { directory.file("contacts.sqlite") }

    init() throws {
        directory = try TemporaryDirectory()
        let clock = self.clock
        store = try ContactStore(path: directory.file("contacts.sqlite"), now: { clock.now() })
        backend = StoreContacts(path: directory.file("contacts.sqlite"), now: { clock.now() })
    }

    /// Imports `texts` as one import run, as `contactbox import` does.
    @discardableResult
    func importCards(_ texts: [String]) throws -> Int64 {
        let runID = try store.beginOperation(.import, note: "test")
        var start = 0
        while start < texts.count {
            let end = min(start + ContactStore.chunkLimit, texts.count)
            _ = try store.importChunk(try texts[start..<end].map(card), runID: runID)
            start = end
        }
        try store.finishOperation(id: runID)
        return runID
    }

    /// Writes `text` as a sync with remote `remote` would (added to the store the first time).
    @discardableResult
    func syncCard(_ text: String, remote name: String) throws -> Int64 {
        let remote =
            try store.remote(named: name) ?? store.addRemote(name: name, kind: .carddav, url: "https://\(name)")
        let runID = try store.beginSyncRun(remoteID: remote.id)
        try store.upsert(try card(text), reason: "replaced by \(name)", remoteID: remote.id, runID: runID)
        try store.finishSyncRun(id: runID, outcome: .ok, counts: SyncCounts())
        return runID
    }
}

/// The card of `text`, read as an import reads it.
func card(_ text: String) throws -> Card {
    var reader = CardReader(text: text)
    guard case .success(let parsed)? = reader.next() else {
        throw FixtureError(description: "fixture card does not parse: \(text.prefix(60))")
    }
    return parsed.card
}

/// Every card of vCard text, in order.
func cards(_ bytes: [UInt8]) throws -> [Card] {
    var reader = CardReader(bytes: bytes)
    var cards: [Card] = []
    while let next = reader.next() {
        cards.append(try next.get().card)
    }
    return cards
}

/// Lines joined with CRLF into a card's text.
func vcard(_ lines: [String]) -> String {
    (["BEGIN:VCARD"] + lines + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
}

/// RFC 4648 base64 with padding, as cards carry their photos.
func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let chunk = bytes[index..<min(index + 3, bytes.count)]
        var value: UInt32 = 0
        for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << UInt32(16 - 8 * offset) }
        for position in 0..<4 {
            output.append(
                position <= chunk.count ? alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3F)] : UInt8(ascii: "=")
            )
        }
        index += 3
    }
    return String(decoding: output, as: UTF8.self)
}

/// The first bytes of a JPEG (its SOI and JFIF APP0 marker): enough for the signature.
let jpegBytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]

/// Real-world-ish cards: Apple's (3.0, labels in groups, a JPEG), Google's (3.0), a 4.0 card with a hostile name and
/// an SVG photo, and a 4.0 group.
enum Cards {
    static let ada = vcard([
        "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.0//EN", "N:Lovelace;Ada;;;", "FN:Ada Lovelace",
        "ORG:Analytical Engines Ltd;Research;", "TITLE:Countess", "item1.TEL;type=pref:+44 20 7946 0000",
        "item1.X-ABLabel:_$!<Mobile>!$_", "item2.TEL:+44 20 7946 0001", "item2.X-ABLabel:Boat phone",
        "EMAIL;type=INTERNET;type=HOME;type=pref:ada@example.org",
        "item3.ADR;type=HOME:;;12 St James's Square;London;;SW1Y 4JH;United Kingdom", "item3.X-ABADR:gb",
        "BDAY;X-APPLE-OMIT-YEAR=1604:1604-12-10", "item4.X-ABDATE:2010-06-12", "item4.X-ABLabel:_$!<Anniversary>!$_",
        "X-SOCIALPROFILE;type=twitter:https://twitter.com/ada", "NOTE:First programmer\\, probably.",
        "X-CUSTOM-THING;X-PARAM=a,b:something odd", "PHOTO;ENCODING=b;TYPE=JPEG:\(base64(jpegBytes))",
        "UID:apple-ada",
    ])

    static let grace = vcard([
        "VERSION:3.0", "FN:Grace Hopper", "N:Hopper;Grace;;;", "EMAIL;TYPE=INTERNET;TYPE=WORK:grace@navy.example",
        "TEL;TYPE=CELL:+1 555 0100", "item1.URL:https\\://grace.example", "item1.X-ABLabel:blog",
        "CATEGORIES:myContacts,Navy", "UID:google-grace",
    ])

    static let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)

    static let bob = vcard([
        "VERSION:4.0", "UID:v4-bob", "FN:Bob <script>alert(1)</script>", "N:Builder;Bob;;;",
        "NICKNAME:Bobby,The Builder", "TEL;VALUE=uri;TYPE=home,voice:tel:+44-20-1234", "BDAY:--0412",
        "ANNIVERSARY:20100612", "GENDER:M;he/him", "LANG;PREF=1:en", "TZ:Europe/London", "GEO:geo:51.5,-0.12",
        "IMPP:xmpp:bob@jabber.example", "RELATED;TYPE=spouse:urn:uuid:apple-ada",
        "PHOTO:data:image/svg+xml;base64,\(base64(svg))",
    ])

    static let family = vcard([
        "VERSION:4.0", "UID:group-family", "KIND:group", "FN:Family", "MEMBER:urn:uuid:apple-ada",
        "MEMBER:urn:uuid:v4-bob",
    ])

    /// A plain card of `name`.
    static func plain(uid: String, name: String, extra: [String] = []) -> String {
        vcard(["VERSION:4.0", "UID:\(uid)", "FN:\(name)", "EMAIL:\(uid)@example.org"] + extra)
    }
}

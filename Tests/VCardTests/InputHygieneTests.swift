import Testing

@testable import VCard

/// Control characters in a UID and binary data that is not base64: the card is kept, and what was changed or
/// doubted is said, naming it.
@Suite("Input hygiene: UIDs and base64")
struct InputHygieneTests {
    func read(_ bytes: [UInt8]) throws -> ParsedCard {
        var reader = CardReader(bytes: bytes)
        return try #require(try reader.next()?.get())
    }

    func card(uid: [UInt8], extra: String = "") -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:".utf8) + uid + Array("\r\nFN:Ann\r\n\(extra)END:VCARD\r\n".utf8)
    }

    @Test("NUL, escape and other control characters are removed from a UID, the same way on every read")
    func controlsRemoved() throws {
        let parsed = try read(card(uid: Array("ab".utf8) + [0x00, 0x1B] + Array("[2Jcd".utf8) + [0x7F]))
        #expect(parsed.card.uid == "ab[2Jcd")
        #expect(parsed.repairs.contains("removed control characters from the UID, now ab[2Jcd"))
        #expect(parsed.warnings == parsed.repairs)
        #expect(
            try read(card(uid: Array("ab".utf8) + [0x00, 0x1B] + Array("[2Jcd".utf8) + [0x7F])).card.uid == "ab[2Jcd")
        #expect(try read(card(uid: Array("plain-uid".utf8))).warnings.isEmpty)
    }

    @Test("a UID of nothing but control characters gets one derived from it: stable, and distinct per UID")
    func onlyControls() throws {
        let first = try read(card(uid: [0x00, 0x01]))
        let again = try read(card(uid: [0x00, 0x01]))
        let other = try read(card(uid: [0x00, 0x02]))
        let uid = try #require(first.card.uid)
        #expect(uid.hasPrefix("contactbox-") && uid == again.card.uid && uid != other.card.uid)
        #expect(!uid.unicodeScalars.contains { $0.value < 0x20 })
        #expect(first.warnings.count == 1)
    }

    @Test("PHOTO data that is not base64 is kept as it is and reported, in 3.0 and in 4.0")
    func invalidBase64() throws {
        let bad3 = try read(card(uid: Array("p3".utf8), extra: "PHOTO;ENCODING=b;TYPE=JPEG:AB*CD$$==x\r\n"))
        #expect(bad3.card.first("PHOTO")?.value == "AB*CD$$==x")
        #expect(bad3.warnings == ["PHOTO holds data that is not valid base64; kept as it is"])
        // Kept, not repaired: written back, it reads the same.
        #expect(bad3.repairs.isEmpty)
        let bad4 = try read(
            Array(
                "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:p4\r\nFN:Ann\r\nPHOTO:data:image/png;base64,!!notbase64\r\nEND:VCARD\r\n"
                    .utf8))
        #expect(bad4.card.first("PHOTO")?.value == "data:image/png;base64,!!notbase64")
        #expect(bad4.warnings == ["PHOTO holds data that is not valid base64; kept as it is"])
        let good = try read(card(uid: Array("ok".utf8), extra: "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ\r\n  SkZJ\r\n"))
        #expect(good.warnings.isEmpty)
        let unpadded = try read(card(uid: Array("ok2".utf8), extra: "LOGO;ENCODING=b;TYPE=PNG:iVBORw0KGgo\r\n"))
        #expect(unpadded.warnings.isEmpty)
        let url = try read(card(uid: Array("ok3".utf8), extra: "PHOTO;VALUE=uri:https://example.org/a.jpg\r\n"))
        #expect(url.warnings.isEmpty)
    }

    @Test(
        "base64 validity",
        arguments: [
            ("QUJD", true), ("QUI=", true), ("QQ==", true), ("QUI", true), ("Q", false), ("Q===", false),
            ("QU=I", false), ("QU I=", true), ("QUJ*", false), ("", true),
        ])
    func base64Rules(text: String, valid: Bool) {
        #expect(CardParser.isBase64(text[...]) == valid, "\(text)")
    }
}

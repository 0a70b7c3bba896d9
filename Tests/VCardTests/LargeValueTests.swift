import SystemSupport
import Testing

@testable import VCard

/// A phone's photo of megabytes is a contact like any other: read, hashed, converted and written byte for byte,
/// its value spooled (`LargeValue`) rather than held, up to the card limit, and refused with a message beyond it.
@Suite("Large photos")
struct LargeValueTests {
    /// Base64 of `count` bytes that start as a JPEG does.
    static func base64(bytes count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        // A random block repeated: random enough for folding and hashing, quick to make in a debug build.
        let block = String(decoding: (0..<4093).map { _ in alphabet[Int.random(in: 0..<64)] }, as: UTF8.self)
        let text = "/9j/" + String(repeating: block, count: count * 4 / 3 / 4093 + 1)
        return String(decoding: text.utf8.prefix(count * 4 / 3 + 4), as: UTF8.self)
    }

    /// A card with an inline photo, as a program builds it (nothing spooled).
    static func card(uid: String, photo: String, version: String = "3.0") -> Card {
        var properties = [
            Property(name: "VERSION", value: version), Property(name: "UID", value: uid),
            Property(name: "FN", value: "Ada Lovelace"), Property(name: "TEL", value: "+44 20 7946 0000"),
        ]
        if version == "4.0" {
            properties.append(Property(name: "PHOTO", value: "data:image/jpeg;base64," + photo))
        } else {
            properties.append(Property(name: "PHOTO", parameters: [Parameter("ENCODING", ["b"])], value: photo))
        }
        properties.append(Property(name: "NOTE", value: "after the photo"))
        return Card(properties: properties)
    }

    func readOne(_ text: CardText) throws -> Card {
        var reader = CardReader(text: text)
        let card = try #require(try reader.next()?.get().card)
        #expect(reader.next() == nil)
        return card
    }

    @Test("a folded 3 MB photo reads as a contact, spooled, and writes back byte for byte")
    func foldedPhotoRoundTrip() throws {
        let inline = Self.card(uid: "big-1", photo: Self.base64(bytes: 3 << 19))
        let text = inline.serializedBytes()
        let card = try readOne(.bytes(text))
        #expect(card.opaqueText == nil)
        #expect(card.displayName == "Ada Lovelace")
        #expect(card.first("NOTE")?.value == "after the photo")
        let photo = try #require(card.first("PHOTO"))
        #expect(photo.large != nil)
        #expect(photo.valueCount == inline.first("PHOTO")?.valueCount)
        #expect(card.contentHash == inline.contentHash)
        #expect(card == inline)
        let written = card.serializedText()
        guard case .spooled = written else {
            Issue.record("a card with a spooled photo is written to a spool file")
            return
        }
        #expect(written.withBytes { Array($0) } == text)
        // Read back from the spool, as the store reads a large row.
        let again = try readOne(written)
        #expect(again.contentHash == inline.contentHash)
        #expect(Card.stored(written, uid: "big-1") == inline)
    }

    @Test("an unfolded photo line of 3 MB reads in pieces, the same contact as folded")
    func unfoldedPhotoLine() throws {
        let photo = Self.base64(bytes: 3 << 19)
        let text =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:big-2\r\nFN:Ada Lovelace\r\nPHOTO;ENCODING=b;TYPE=JPEG:\(photo)\r\nEND:VCARD\r\n"
        let card = try readOne(.bytes(Array(text.utf8)))
        #expect(card.first("PHOTO")?.large != nil)
        let folded = try readOne(Self.card(uid: "big-2", photo: photo).serializedText())
        #expect(
            card.first("PHOTO")
                == folded.first("PHOTO").map {
                    var p = $0
                    p.parameters.append(Parameter("TYPE", ["JPEG"]))
                    return p
                })
    }

    @Test("base64 folded with two spaces (Apple) loses its spaces, as a small photo does")
    func applePhotoSpaces() throws {
        let photo = Self.base64(bytes: 200 * 1024)
        var lines = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:big-3\r\nFN:Ada\r\nPHOTO;ENCODING=b;TYPE=JPEG:"
        var rest = Substring(photo)
        while !rest.isEmpty {
            lines += rest.prefix(72) + "\r\n  "
            rest = rest.dropFirst(72)
        }
        lines += "\r\nEND:VCARD\r\n"
        let card = try readOne(.bytes(Array(lines.utf8)))
        let value = try #require(card.first("PHOTO"))
        #expect(value.large != nil)
        #expect(value.value == photo)
    }

    @Test("a 4.0 photo as a data: URI hashes as its 3.0 form, and each form converts without reading it whole")
    func forms() throws {
        let photo = Self.base64(bytes: 3 << 19)
        let three = try readOne(Self.card(uid: "big-4", photo: photo).serializedText())
        let four = try readOne(Self.card(uid: "big-4", photo: photo, version: "4.0").serializedText())
        #expect(four.first("PHOTO")?.large != nil)
        #expect(three.contentHash == four.contentHash)
        let asThree = try #require(four.first("PHOTO")?.version3Form())
        #expect(asThree.large != nil)
        #expect(asThree.parameterValues("ENCODING") == ["b"])
        #expect(asThree.parameterValues("TYPE") == ["JPEG"])
        #expect(asThree.value == photo)
        let asFour = try #require(three.first("PHOTO")?.mediaAsVersion4())
        #expect(asFour.large != nil)
        #expect(asFour.value == "data:image/jpeg;base64," + photo)
    }

    @Test("a photo changed by one byte changes the hash")
    func hashSeesChange() throws {
        let photo = Self.base64(bytes: 3 << 19)
        let one = try readOne(Self.card(uid: "big-5", photo: photo).serializedText())
        let other = try readOne(Self.card(uid: "big-5", photo: String(photo.dropLast()) + "Q").serializedText())
        #expect(one.contentHash != other.contentHash)
        #expect(one != other)
    }

    @Test("a card over 16 MiB is refused, saying so, and reading goes on")
    func overTheLimit() throws {
        let huge = Self.card(uid: "huge", photo: Self.base64(bytes: 13 << 20)).serializedBytes()
        let small = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:small\r\nFN:Small\r\nEND:VCARD\r\n".utf8)
        let results = readAll(CardReader(bytes: huge + small))
        #expect(cards(results).compactMap(\.uid) == ["small"])
        #expect(errors(results).map(\.code) == [.cardTooLarge])
        #expect(errors(results).first?.message == "card is larger than 16 MiB")
    }

    @Test("a long value that is no photo still has the line limit")
    func longTextValue() {
        let text =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:n\r\nFN:N\r\nNOTE:" + String(repeating: "é", count: 1 << 20)
            + "\r\nEND:VCARD\r\n"
        #expect(errors(readAll(text)).map(\.code) == [.lineTooLong])
    }
}

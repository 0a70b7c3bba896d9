import Testing

@testable import VCard

/// Cards in the shapes real exporters write (see Corpus/README.md).
@Suite("Exporter corpus round trip")
struct CorpusRoundTripTests {
    static let exporters = [
        "icloud.vcf", "google.vcf", "outlook.vcf", "nextcloud.vcf", "android21.vcf", "canonical.vcf",
    ]

    @Test("every card of every exporter reads without error", arguments: exporters)
    func readsWithoutError(file: String) throws {
        let results = try readCorpus(file)
        #expect(errors(results).isEmpty, "\(errors(results))")
        #expect(cards(results).count >= 3)
        for card in cards(results) {
            #expect(!(card.uid ?? "").isEmpty)
            #expect(!card.displayName.isEmpty)
        }
    }

    @Test("serialise then read gives the same properties and hash", arguments: exporters)
    func semanticRoundTrip(file: String) throws {
        for card in cards(try readCorpus(file)) {
            let text = card.serialized()
            let again = try #require(readAll(text).first).get().card
            #expect(again == card)
            #expect(again.contentHash == card.contentHash)
            #expect(again.serialized() == text, "serialising is not stable for \(card.displayName)")
        }
    }

    @Test("canonical cards serialise back byte for byte")
    func canonicalIsByteForByte() throws {
        let bytes = try corpusBytes("canonical.vcf")
        let written = cards(try readCorpus("canonical.vcf")).map { $0.serialized() }.joined()
        #expect(Array(written.utf8) == bytes)
    }

    @Test("unknown, X- and grouped properties and quoted parameters survive")
    func keepsWhatItDoesNotKnow() throws {
        let all = try Self.exporters.flatMap { cards(try readCorpus($0)) }
        let lines = all.flatMap { $0.serialized().components(separatedBy: "\r\n") }
        #expect(lines.contains { $0.hasPrefix("item1.X-ABLabel:") })
        #expect(lines.contains { $0.hasPrefix("X-ABUID:") })
        #expect(lines.contains { $0.hasPrefix("X-MS-OL-DEFAULT-POSTAL-ADDRESS:") })
        #expect(lines.contains { $0.contains("TYPE=\"voice,home\"") })
        let photos = all.compactMap { $0.first("PHOTO") }
        #expect(photos.contains { $0.value.hasPrefix("data:image/jpeg;base64,") })
        #expect(photos.contains { $0.parameterValues("ENCODING") == ["b"] && $0.value.hasPrefix("/9j/") })
    }
}

@Suite("vCard 2.1 from old phones and Outlook")
struct LegacyTests {
    @Test("quoted-printable UTF-8 names decode, soft line breaks join, and the card becomes 3.0")
    func quotedPrintableUTF8() throws {
        let android = cards(try readCorpus("android21.vcf"))
        let ayse = try #require(android.first { $0.displayName == "Ayşe Öztürk" })
        #expect(ayse.version == "3.0")
        #expect(ayse.first("N")?.components.prefix(2) == ["Öztürk", "Ayşe"])
        #expect(ayse.first("ADR")?.components[2] == "Bağdat Caddesi No: 214 Daire 6")
        #expect(ayse.first("NOTE")?.text.contains("tatilde kedisi") == true)
        #expect(ayse.first("NOTE")?.text.contains("anahtar onda; tatilde") == true)
        let tel = try #require(ayse.first("TEL"))
        #expect(tel.parameterValues("TYPE") == ["CELL", "PREF"])
        #expect(!ayse.serialized().contains("QUOTED-PRINTABLE"))
        #expect(!ayse.serialized().contains("CHARSET"))
    }

    @Test("ISO-8859-1 text decodes to UTF-8")
    func latin1() throws {
        let android = cards(try readCorpus("android21.vcf"))
        let rene = try #require(android.first { $0.displayName == "René Lefèvre" })
        #expect(rene.first("ADR")?.components[2] == "12 allée des Chênes")
        #expect(rene.first("ADR")?.components[3] == "Orléans")
    }

    @Test("a base64 photo keeps its bytes and becomes ENCODING=b")
    func base64Photo() throws {
        let android = cards(try readCorpus("android21.vcf"))
        let photo = try #require(android.compactMap { $0.first("PHOTO") }.first)
        #expect(photo.parameterValues("ENCODING") == ["b"])
        #expect(photo.parameterValues("TYPE") == ["JPEG"])
        #expect(photo.value.hasPrefix("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9"))
        #expect(photo.value.hasSuffix("5ZIirbLQ/9k="))
        #expect(!photo.value.contains(" "))
    }

    @Test("a card with no UID gets one; one with no FN gets it from N")
    func repairsOldPhoneCards() throws {
        let results = try readCorpus("android21.vcf")
        let parsed = results.compactMap { try? $0.get() }
        #expect(parsed.contains { $0.repairs.contains { $0.hasPrefix("added UID") } })
        #expect(parsed.contains { $0.repairs.contains("derived FN from N") && $0.card.displayName == "Linh Nguyen" })
    }

    @Test("2.1 commas become escaped text and bare types become TYPE")
    func escapesAndTypes() throws {
        let card = try makeCard("VERSION:2.1", "N:Smith;John", "FN:Smith, John", "TEL;WORK;VOICE:555", "NOTE:a,b\\;c")
        #expect(card.first("FN")?.value == "Smith\\, John")
        #expect(card.displayName == "Smith, John")
        #expect(card.first("TEL")?.parameterValues("TYPE") == ["WORK", "VOICE"])
        #expect(card.first("NOTE")?.text == "a,b;c")
    }
}

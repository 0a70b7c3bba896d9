import Testing

@testable import VCard

/// A mapping between a 4.0 line and the 3.0 line written for it.
struct VersionMapping: CustomTestStringConvertible, Sendable {
    var four: String
    var three: String

    init(_ four: String, _ three: String) {
        self.four = four
        self.three = three
    }

    var testDescription: String { four }
}

/// `Card.converted(toVersion:)` between 4.0 and 3.0 (the table in Docs/vcard.md).
@Suite("vCard 3.0 form")
struct Version3FormTests {
    /// 4.0 lines and the 3.0 lines written for them, which read back as the 4.0 line.
    static let mappings: [VersionMapping] = [
        VersionMapping("PHOTO:data:image/png;base64,iVBORw0KGgo=", "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo="),
        VersionMapping("LOGO:data:image/jpeg;base64,/9j/4AAQ", "LOGO;ENCODING=b;TYPE=JPEG:/9j/4AAQ"),
        VersionMapping(
            "PHOTO;MEDIATYPE=image/png:http://example.com/a.png", "PHOTO;VALUE=uri;TYPE=PNG:http://example.com/a.png"),
        VersionMapping("PHOTO:http://example.com/a.gif", "PHOTO;VALUE=uri:http://example.com/a.gif"),
        VersionMapping("KIND:group", "X-ADDRESSBOOKSERVER-KIND:group"),
        VersionMapping("KIND:org", "X-ADDRESSBOOKSERVER-KIND:org"),
        VersionMapping(
            "MEMBER:urn:uuid:03a0e51f-d1aa-4385-8a53-e29025acd8af",
            "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:03a0e51f-d1aa-4385-8a53-e29025acd8af"),
        VersionMapping("EMAIL;PREF=1:ada@example.org", "EMAIL;TYPE=pref:ada@example.org"),
        VersionMapping("TEL;TYPE=cell;PREF=1:+44 20 7946 0000", "TEL;TYPE=cell,pref:+44 20 7946 0000"),
        VersionMapping("GENDER:F;woman", "X-GENDER:F;woman"),
        VersionMapping("ANNIVERSARY:20100612", "X-ANNIVERSARY:20100612"),
        VersionMapping("BDAY:--0415", "BDAY;X-APPLE-OMIT-YEAR=1604:1604-04-15"),
        VersionMapping("ANNIVERSARY:--0612", "X-ANNIVERSARY;X-APPLE-OMIT-YEAR=1604:1604-06-12"),
    ]

    /// 4.0 lines written in 3.0 in a form that reads back as another 4.0 line saying the same.
    static let oneWay: [VersionMapping] = [
        VersionMapping("PHOTO:data:base64,iVBORw0KGgo=", "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo="),
        VersionMapping("PHOTO:data:image/png;base64\\,iVBORw0KGgo=", "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo="),
        VersionMapping("PHOTO;TYPE=PNG:data:base64\\,iVBORw0KGgo=", "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo="),
        VersionMapping("PHOTO:data:base64\\,R0lGODlh", "PHOTO;ENCODING=b;TYPE=GIF:R0lGODlh"),
        VersionMapping("PHOTO:data:base64,AAAA", "PHOTO;ENCODING=b:AAAA"),
        VersionMapping(
            "TEL;VALUE=uri;TYPE=work:tel:+1-418-656-9254;ext=102", "TEL;TYPE=work:+1-418-656-9254 ext. 102"),
        VersionMapping(
            "TEL;VALUE=uri;TYPE=voice;PREF=1:tel:+1-555-555-5555", "TEL;TYPE=voice,pref:+1-555-555-5555"),
    ]

    /// 4.0 lines that go into 3.0 as they are.
    static let unchanged = [
        "EMAIL;PREF=2:ada@example.org", "CLIENTPIDMAP:1;urn:uuid:3df403f4-5924-4bb7-b077-3c711d9eb34b",
        "EMAIL;PID=1.1:ada@example.org", "BDAY:19850415", "BDAY:--04-15", "RELATED;TYPE=spouse:urn:uuid:b876",
        "TEL;VALUE=uri:tel:+1-555-0100;phone-context=example.com", "SOUND;TYPE=X-IRMC-N:Dr: Ada",
        "PHOTO;VALUE=uri:http://example.com/a.gif", "TEL;VALUE=uri:tel:+1-555-0100;ext=",
        "TEL;VALUE=uri:tel:;ext=5",
    ]

    func card(version: String, _ line: String) throws -> Card {
        try makeCard("VERSION:\(version)", "UID:u", "FN:Ada", line)
    }

    /// The card's lines other than BEGIN, VERSION, UID, FN and END, unfolded.
    func body(_ card: Card) -> [String] {
        card.serialized().replacing("\r\n ", with: "").split(separator: "\r\n").map(String.init).filter { line in
            !["BEGIN:", "VERSION:", "UID:", "FN:", "END:"].contains { line.hasPrefix($0) }
        }
    }

    /// The 4.0 card in 3.0, written and read again.
    func throughThree(_ card: Card) throws -> Card {
        let text = card.converted(toVersion: "3.0").serialized()
        return try #require(readAll(text).first).get().card
    }

    @Test("writes each 4.0 form as its 3.0 form", arguments: mappings + oneWay)
    func writesVersion3(mapping: VersionMapping) throws {
        let four = try card(version: "4.0", mapping.four)
        let three = four.converted(toVersion: "3.0")
        #expect(three.version == "3.0")
        #expect(body(three) == [mapping.three])
        #expect(three.contentHash == four.contentHash)
    }

    @Test("reads each 3.0 form back as the 4.0 form, with the same content hash", arguments: mappings)
    func readsVersion4(mapping: VersionMapping) throws {
        let three = try card(version: "3.0", mapping.three)
        let four = three.converted(toVersion: "4.0")
        #expect(four.version == "4.0")
        #expect(body(four) == [mapping.four])
        #expect(four.contentHash == three.contentHash)
    }

    @Test("a 4.0 line written in another 3.0 form comes back saying the same", arguments: oneWay)
    func roundTripsOneWayForms(mapping: VersionMapping) throws {
        let four = try card(version: "4.0", mapping.four)
        let back = try throughThree(four).converted(toVersion: "4.0")
        #expect(back.contentHash == four.contentHash)
        #expect(back.serialized().contains("4.0"))
    }

    @Test("leaves lines that 3.0 carries as they are", arguments: unchanged)
    func leavesOthers(line: String) throws {
        let four = try card(version: "4.0", line)
        #expect(body(four.converted(toVersion: "3.0")) == [line])
    }

    @Test("never writes an empty or a second TYPE for a photo")
    func noEmptyOrDoubleType() throws {
        let four = try makeCard(
            "VERSION:4.0", "UID:u", "FN:Ada", "PHOTO:data:image/png;base64\\,iVBORw0KGgo=",
            "PHOTO;TYPE=PNG:data:base64\\,iVBORw0KGgo=", "LOGO:data:base64\\,AAAA", "SOUND:data:,hello",
            "KEY;TYPE=PGP:data:base64,AAAA")
        let lines = body(four.converted(toVersion: "3.0"))
        #expect(
            lines == [
                "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo=", "PHOTO;ENCODING=b;TYPE=PNG:iVBORw0KGgo=",
                "LOGO;ENCODING=b:AAAA", "SOUND:hello", "KEY;ENCODING=b;TYPE=PGP:AAAA",
            ])
    }

    @Test("a group card goes to 3.0 and back with its kind and members")
    func groupRoundTrip() throws {
        let group = try makeCard(
            "VERSION:4.0", "UID:g", "FN:Chess club", "KIND:group", "MEMBER:urn:uuid:a", "MEMBER:urn:uuid:b")
        let three = group.converted(toVersion: "3.0")
        #expect(
            body(three) == [
                "X-ADDRESSBOOKSERVER-KIND:group", "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:a",
                "X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:b",
            ])
        let back = try throughThree(group).converted(toVersion: "4.0")
        #expect(back == group)
    }

    @Test("reads the lower-case name Cyrus writes for a 4.0 kind served as 3.0")
    func cyrusKind() throws {
        let three = try card(version: "3.0", "x-addressbookserver-kind:individual")
        #expect(body(three.converted(toVersion: "4.0")) == ["KIND:individual"])
    }

    @Test("reads a gender whose separator a server escaped")
    func escapedGender() throws {
        let three = try card(version: "3.0", "X-GENDER:M\\;Fellow")
        #expect(body(three.converted(toVersion: "4.0")) == ["GENDER:M;Fellow"])
        #expect(three.contentHash == (try card(version: "4.0", "GENDER:M;Fellow")).contentHash)
    }

    @Test("keeps a card in its own version, and an opaque card, as it is")
    func keepsSameVersionAndOpaque() throws {
        let three = try card(version: "3.0", "EMAIL;TYPE=pref:ada@example.org")
        #expect(three.converted(toVersion: "3.0") == three)
        let four = try card(version: "4.0", "KIND:group")
        #expect(four.converted(toVersion: "4.0") == four)
        let opaque = Card(opaque: "BEGIN:VCARD\r\nVERSION:4.0\r\nKIND:group\r\nEND:VCARD\r\n", uid: "o")
        #expect(opaque.converted(toVersion: "3.0") == opaque)
    }

    @Test(
        "odd lines keep their content hash through 3.0 and back",
        arguments: [
            "EMAIL;PREF=1;PREF=1:ada@example.org", "TEL;VALUE=uri:tel:+1-555-0100\\;ext=7", "TEL:tel:%0A1",
            "PHOTO;ENCODING=b:data:;base64,AAAA", "PHOTO:data:;base64,data:;base64,AAAA",
            "BDAY;X-APPLE-OMIT-YEAR=1999:--0415", "TEL;PREF=1;TYPE=pref:+1-555-0100",
        ])
    func oddLines(line: String) throws {
        let four = try card(version: "4.0", line)
        let three = try throughThree(four)
        #expect(three.contentHash == four.contentHash)
        #expect(three.converted(toVersion: "4.0").contentHash == four.contentHash)
    }

    @Test("a 3.0 photo without a TYPE hashes as the same photo typed by its bytes, as Cyrus serves it in 4.0")
    func untypedPhoto() throws {
        let untyped = try card(version: "3.0", "PHOTO;ENCODING=b:/9j/4AAQ")
        let typed = try card(version: "4.0", "PHOTO:data:image/jpeg;base64,/9j/4AAQ")
        #expect(untyped.contentHash == typed.contentHash)
        #expect(body(untyped.converted(toVersion: "4.0")) == ["PHOTO:data:image/jpeg;base64,/9j/4AAQ"])
        let unknown = try card(version: "3.0", "PHOTO;ENCODING=b:AAAA")
        #expect(body(unknown.converted(toVersion: "4.0")) == ["PHOTO:data:;base64,AAAA"])
        #expect(unknown.converted(toVersion: "4.0").contentHash == unknown.contentHash)
    }

    @Test("a preference below the first is a change of the card")
    func lowerPreferenceIsAChange() throws {
        let first = try card(version: "4.0", "EMAIL;PREF=1:ada@example.org")
        let second = try card(version: "4.0", "EMAIL;PREF=2:ada@example.org")
        let none = try card(version: "4.0", "EMAIL:ada@example.org")
        #expect(Set([first.contentHash, second.contentHash, none.contentHash]).count == 3)
    }
}

/// The corpus through a 3.0 server's form: what 3.0 carries comes back.
@Suite("vCard 3.0 form over the corpus")
struct Version3CorpusTests {
    static let files =
        CorpusRoundTripTests.exporters + [
            "real/ezvcard-apple-addressbook.vcf", "real/ezvcard-evolution.vcf", "real/ezvcard-gmail-list.vcf",
            "real/ezvcard-gmail-single.vcf", "real/folkerkinzel-cardbook-v4.vcf", "real/folkerkinzel-wab-v21.vcf",
            "real/vobject-vcard40-full.vcf",
        ]

    @Test("every card as 4.0, written as 3.0, read and made 4.0 again, keeps its content hash", arguments: files)
    func roundTrip(file: String) throws {
        for card in cards(try readCorpus(file)) {
            let four = card.converted(toVersion: "4.0")
            let text = four.converted(toVersion: "3.0").serialized()
            let three = try #require(readAll(text).first).get().card
            #expect(three.version == "3.0")
            let back = three.converted(toVersion: "4.0")
            #expect(back.contentHash == four.contentHash, "\(file): \(card.displayName)")
            #expect(back.version == "4.0")
        }
    }

    @Test("a 3.0 card read as 4.0 keeps its content hash", arguments: files)
    func readAsFour(file: String) throws {
        for card in cards(try readCorpus(file)) where card.version == "3.0" {
            #expect(card.converted(toVersion: "4.0").contentHash == card.contentHash, "\(file): \(card.displayName)")
        }
    }

    @Test("the full 4.0 example comes back with its kind, gender, anniversary, preferences and telephone numbers")
    func fullExample() throws {
        let card = try #require(cards(try readCorpus("real/vobject-vcard40-full.vcf")).first)
        let three = card.converted(toVersion: "3.0")
        let lines = three.serialized().split(separator: "\r\n").map(String.init)
        for line in [
            "X-ADDRESSBOOKSERVER-KIND:individual", "X-GENDER:M", "X-ANNIVERSARY:20100612",
            "TEL;TYPE=voice,pref:+1-555-555-5555", "TEL;TYPE=cell:+1-555-123-4567", "LANG;TYPE=pref:en",
            "PHOTO;VALUE=uri:http://www.example.com/pub/photos/jqpublic.gif", "LANG;PREF=2:fr",
        ] {
            #expect(lines.contains(line), "\(line)")
        }
        let back = three.converted(toVersion: "4.0")
        #expect(back.first("KIND")?.value == "individual")
        #expect(back.first("GENDER")?.value == "M")
        #expect(back.first("ANNIVERSARY")?.value == "20100612")
        #expect(back.contentHash == card.contentHash)
    }
}

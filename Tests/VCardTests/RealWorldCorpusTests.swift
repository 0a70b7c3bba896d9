import Testing

@testable import VCard

/// What one corpus file must yield: the cards in order, each by the name lists show, with one field that must come
/// through, and the repairs the file needs (a card's repairs, "added UID" left out as its UID is random).
struct CorpusExpectation: CustomTestStringConvertible, Sendable {
    var file: String
    var names: [String]
    var repairs: [[String]]
    var check: @Sendable ([Card]) throws -> Void

    var testDescription: String { file }
}

/// Real files from other projects' test suites (Corpus/SOURCES.md says where each comes from, and its licence), and
/// synthetic ones for what no permissively licensed suite holds (Corpus/lenient, also listed there).
@Suite("Real-world corpus")
struct RealWorldCorpusTests {
    static let expectations: [CorpusExpectation] = [
        CorpusExpectation(
            file: "real/ezvcard-apple-addressbook.vcf", names: ["Mr. John Richter,James Doe Sr."],
            repairs: [
                [
                    "read non-standard escapes \\\" \\: as the escaped characters",
                    "read bare parameters BASE64 as ENCODING=b",
                ]
            ]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.first("NOTE")?.text.hasPrefix("THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS") == true)
            #expect(card.first("NOTE")?.text.contains("CONTRIBUTORS \"AS IS\" AND") == true)
            #expect(card.first("NOTE")?.text.hasSuffix("DAMAGE.\nFavotire Color: Blue") == true)
            #expect(card.first("URL")?.value == "http://www.ibm.com")
            #expect(card.first("URL")?.group == "item4")
            #expect(card.first("ADR")?.components[2] == "Silicon Alley 5,")
            // Apple's `\:` in an extension property reads as the colon it escapes (written back without the backslash).
            #expect(card.first("X-ABUID")?.value == "6B29A774-D124-4822-B8D0-2780EC117F60:ABPerson")
            let photo = try #require(card.first("PHOTO"))
            #expect(photo.parameters == [Parameter("ENCODING", ["b"])])
            #expect(
                photo.value.hasPrefix(
                    "/9j/4AAQSkZJRgABAQAAAQABAAD/4QBARXhpZgAATU0AKgAAAAgAAYdpAAQAAAABAAAAGgAAAAAAAqAC"))
            #expect(photo.value.hasSuffix("wkNDg0MDgsMDAv/2wBDAQICAgMCAwUDAwUL/9k="))
        },
        CorpusExpectation(
            file: "real/ezvcard-evolution.vcf", names: ["Mr. John Richter, James Doe Sr."], repairs: [[]]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.uid == "477343c8e6bf375a9bac1f96a5000837")
            #expect(card.first("EMAIL")?.value == "john.doe@ibm.com")
            #expect(card.first("EMAIL")?.parameterValues("X-COUCHDB-UUID") == ["83a75a5d-2777-45aa-bab5-76a4bd972490"])
            #expect(card.properties.filter { $0.isNamed("TEL") }.map(\.value) == ["905-666-1234", "905-555-1234"])
            #expect(
                card.first("ADR")?.components == [
                    "ASB-123", "", "15 Crescent moon drive", "Albaney", "New York", "12345", "United States of America",
                ])
            #expect(card.first("NOTE")?.text.contains("TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING") == true)
            #expect(
                card.first("X-COUCHDB-APPLICATION-ANNOTATIONS")?.value
                    == "{\"Evolution\":{\"revision\":\"2012-03-05T13:32:54Z\"}}")
        },
        CorpusExpectation(
            file: "real/ezvcard-gmail-list.vcf", names: ["Arnold Smith", "Chris Beatle", "Doug White"],
            repairs: [[], [], []]
        ) { cards in
            #expect(
                cards.map { $0.first("EMAIL")?.value } == [
                    "asmithk@gmail.com", "chrisy55d@yahoo.com", "dwhite@gmail.com",
                ])
        },
        CorpusExpectation(
            file: "real/ezvcard-gmail-single.vcf", names: ["VCard Test"],
            repairs: [["read non-standard escapes \\: as the escaped characters"]]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.properties.filter { $0.isNamed("TEL") }.count == 11)
            #expect(card.properties.filter { $0.isNamed("EMAIL") }.count == 5)
            #expect(
                card.properties.filter { $0.isNamed("URL") }.map(\.value) == [
                    "http://www.example1.com", "http://www.example2.com", "http://www.example3.com",
                    "http://www.example4.com", "http://www.example5.com", "http://www.example6.com",
                ])
            #expect(
                card.properties.filter { $0.group == "item25" }.map(\.value) == ["Name16", "CustomRelationCategory"])
            #expect(card.first("NOTE")?.text == "note line 1\nnote line 2\nCustomField: field value")
        },
        CorpusExpectation(
            file: "real/folkerkinzel-wab-v21.vcf", names: ["Maxl"], repairs: [[]]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.version == "3.0")
            #expect(card.first("N")?.components == ["Mustermann", "Max", "Middle Name", "Dr."])
            #expect(card.first("ORG")?.components == ["Firma", "Führungsetage"])
            let line = "Kommentar ÄÄÄÄÄÄ ääääää ÖÖÖÖÖÖ öööööö ÜÜÜÜÜÜ üüüüüü ßßßßßß"
            #expect(card.first("NOTE")?.text == Array(repeating: line, count: 6).joined(separator: "\n"))
            #expect(card.first("LABEL")?.text == "1\nFirmenstraße\nOrt Firma, Bundesland Firma PLZFirma\nLand Firma")
            let tel = try #require(card.first("TEL"))
            #expect(tel.text == "Tel geschäftlich")
            #expect(tel.parameters == [Parameter("TYPE", ["WORK", "VOICE"])])
            #expect(card.first("EMAIL")?.parameterValues("TYPE") == ["PREF", "INTERNET"])
            #expect(!card.serialized().contains("QUOTED-PRINTABLE"))
        },
        CorpusExpectation(
            file: "real/folkerkinzel-cardbook-v4.vcf",
            names: ["Möhrke Marina", "Dr. Max Horst Mustermann jr. Maxl SED"], repairs: [[], []]
        ) { cards in
            #expect(
                cards.map(\.uid) == ["9e49143d-201c-46cc-b1ca-b84cac8211e9", "44a91276-ed88-4fc8-b496-ee14854276f8"])
            #expect(cards.map(\.version) == ["4.0", "4.0"])
            #expect(cards[1].properties.filter { $0.isNamed("TEL") }.count == 10)
            #expect(cards[1].first("ADR")?.components[2] == "Priorauer Str. 32")
            #expect(cards[1].first("X-ABLABEL")?.group == "ITEM1")
        },
        CorpusExpectation(
            file: "real/vobject-vcard40-full.vcf", names: ["Dr. John Q. Public, III"], repairs: [[]]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.uid == "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
            #expect(card.properties.filter { $0.isNamed("FN") }.count == 2)
            #expect(card.first("TEL")?.value == "tel:+1-555-555-5555")
            #expect(card.first("GEO")?.value == "geo:37.386013,-122.082932")
            #expect(card.first("NICKNAME")?.value == "Johnny,JQP")
        },
        CorpusExpectation(
            file: "lenient/iphone-crcrlf.vcf", names: ["Camille Dubois", "plumber@service.example"],
            repairs: [
                [
                    "read line ends written as CR CR LF or a lone CR",
                    "read non-standard escapes \\\" \\' as the escaped characters",
                ],
                ["read line ends written as CR CR LF or a lone CR"],
            ]
        ) { cards in
            #expect(cards[0].first("ORG")?.components == ["Atelier \"Les Tilleuls\"", ""])
            #expect(cards[0].first("NOTE")?.text == "Door code \"4812\", ring twice\nDon't call after 9")
            #expect(cards[0].first("CATEGORIES")?.value == "Friends,Rock 'n' Roll")
            #expect(cards[1].formattedName == nil)
            #expect(cards[1].first("FN")?.value == "", "the empty FN stays as written; none is invented")
            #expect(cards[1].addingDerivedFN()?.note == "added FN \"plumber@service.example\" from EMAIL")
        },
        CorpusExpectation(
            file: "lenient/phone-shiftjis21.vcf", names: ["太郎 山田", "花子 佐藤"],
            repairs: [
                ["decoded CHARSET=SHIFT_JIS to UTF-8", "derived FN from N"],
                ["decoded CHARSET=SHIFT_JIS to UTF-8", "derived FN from N"],
            ]
        ) { cards in
            #expect(cards[0].first("N")?.components.prefix(2) == ["山田", "太郎"])
            #expect(cards[0].first("SOUND")?.value == "ﾔﾏﾀﾞ;ﾀﾛｳ;;;")
            #expect(cards[0].first("SOUND")?.parameters == [Parameter("TYPE", ["X-IRMC-N"])])
            #expect(cards[0].first("ADR")?.components[2] == "渋谷区神南1-2-3")
            #expect(cards[0].first("NOTE")?.text == "会議室①の予約")
            #expect(cards[0].first("TEL")?.parameterValues("TYPE") == ["PREF", "CELL"])
            #expect(cards[0].first("X-IRMC-LUID")?.value == "000001")
            #expect(cards[1].first("ORG")?.text == "株式会社ソフト表計算", "SHIFT_JIS second bytes 0x5C are no backslashes")
        },
        CorpusExpectation(
            file: "lenient/outlook-cp1252.vcf", names: ["René Lefèvre"],
            repairs: [["read text that is not UTF-8 as Windows-1252 (N, FN, ORG, NOTE)"]]
        ) { cards in
            let card = try #require(cards.first)
            #expect(card.first("N")?.components == ["Lefèvre", "René"])
            #expect(card.first("N")?.parameters == [Parameter("LANGUAGE", ["fr"])])
            #expect(card.first("ORG")?.text == "Café “Les Amis”")
            #expect(card.first("NOTE")?.text == "Prix été : 12 €\nL’adresse est changée")
        },
        CorpusExpectation(
            file: "lenient/bom-mixed-endings.vcf", names: ["Mixed Ends", "only@mail.example"],
            repairs: [
                [
                    "ignored a byte order mark", "read line ends written as CR CR LF or a lone CR",
                    "read bare parameters CELL as TYPE=CELL",
                ],
                ["ignored a byte order mark"],
            ]
        ) { cards in
            #expect(cards.map(\.uid) == ["mix-1", "mix-2"])
            #expect(cards[0].first("TEL")?.parameters == [Parameter("TYPE", ["CELL"])])
            #expect(cards[0].first("N")?.value == "Ends;Mixed;;;")
            #expect(cards[1].first("FN") == nil)
        },
    ]

    @Test("each file yields its cards, names, key fields and repairs", arguments: expectations)
    func yieldsItsCards(expected: CorpusExpectation) throws {
        let results = try readCorpus(expected.file)
        #expect(errors(results).isEmpty, "\(errors(results))")
        let parsed = results.compactMap { try? $0.get() }
        #expect(parsed.map(\.card.displayName) == expected.names)
        #expect(parsed.map { $0.repairs.filter { !$0.hasPrefix("added UID ") } } == expected.repairs)
        for card in parsed where !card.repairs.contains(where: { $0.hasPrefix("added UID ") }) {
            #expect(card.card.uid != nil)
        }
        try expected.check(parsed.map(\.card))
    }

    @Test("import, export, re-import keeps every card: same properties, same content hash, nothing to repair")
    func roundTrip() throws {
        for expected in Self.expectations {
            let original = cards(try readCorpus(expected.file))
            let exported = original.map { $0.serialized() }.joined()
            let again = readAll(exported)
            #expect(errors(again).isEmpty)
            let reread = again.compactMap { try? $0.get() }
            #expect(reread.map(\.card) == original, "\(expected.file)")
            #expect(reread.map(\.card.contentHash) == original.map(\.contentHash), "\(expected.file)")
            #expect(reread.allSatisfy { $0.repairs.isEmpty }, "\(expected.file): \(reread.map(\.repairs))")
            #expect(reread.map { $0.card.serialized() }.joined() == exported, "\(expected.file): not stable")
            // Exact in what we write: CRLF only, lines at most 75 octets, UTF-8, no legacy parameters.
            let bytes = Array(exported.utf8)
            #expect(String(validating: bytes, as: UTF8.self) != nil)
            let lines = exported.components(separatedBy: "\r\n").dropLast()
            #expect(lines.allSatisfy { !$0.contains("\r") && !$0.contains("\n") })
            #expect(lines.allSatisfy { $0.utf8.count <= 75 }, "\(expected.file)")
            #expect(!exported.contains("CHARSET=") && !exported.contains("QUOTED-PRINTABLE"), "\(expected.file)")
        }
    }
}

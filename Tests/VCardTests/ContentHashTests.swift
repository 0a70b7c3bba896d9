import Testing

@testable import VCard

@Suite("Content hash")
struct ContentHashTests {
    let base = [
        "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.0//EN", "UID:abc", "N:Lovelace;Ada;;;", "FN:Ada Lovelace",
        "item1.EMAIL;TYPE=INTERNET,HOME:ada@example.org", "item1.X-ABLabel:private", "TEL;TYPE=CELL:+44 20 7946 0000",
        "NOTE:Analyst\\, mathematician\\nfirst programmer", "REV:2024-01-01T00:00:00Z",
    ]

    func hash(_ lines: [String]) throws -> String {
        let text = (["BEGIN:VCARD"] + lines + ["END:VCARD"]).joined(separator: "\r\n")
        return try #require(readAll(text).first).get().card.contentHash
    }

    @Test("reads a name's case alike beyond ASCII too, as a name upper-cased in full")
    func nameCaseBeyondASCII() {
        let lower = Card(properties: [Property(name: "FN", value: "A"), Property(name: "é", value: "x")])
        let upper = Card(properties: [Property(name: "FN", value: "A"), Property(name: "É", value: "x")])
        #expect(lower.contentHash == upper.contentHash)
    }

    @Test("is a 64-digit lowercase hex SHA-256")
    func isSHA256() throws {
        let value = try hash(base)
        #expect(value.count == 64)
        #expect(value.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("ignores PRODID, REV, UID, property order, folding, escaping and the case of names")
    func ignoresVolatileDifferences() throws {
        let reference = try hash(base)
        var variant = base.filter { !$0.hasPrefix("PRODID") && !$0.hasPrefix("REV") }
        variant.reverse()
        variant = variant.map { $0.hasPrefix("UID") ? "UID:other" : $0 }
        variant = variant.map {
            $0.hasPrefix("item1.EMAIL") ? "ITEM1.email;type=home;type=internet:ada@example.org" : $0
        }
        variant = variant.map { $0.hasPrefix("N:") ? "n:Lovelace;Ada" : $0 }
        variant = variant.map { $0.hasPrefix("NOTE") ? "note:Analyst\\, mathematician\\Nfirst programmer" : $0 }
        variant.append("PRODID:-//Radicale//NONSGML Radicale Server//EN")
        #expect(try hash(variant) == reference)

        let card = try #require(readAll((["BEGIN:VCARD"] + base + ["END:VCARD"]).joined(separator: "\r\n")).first).get()
            .card
        let folded = card.serialized().replacingOccurrences(of: "Analyst", with: "Ana\r\n lyst")
        #expect(try #require(readAll(folded).first).get().card.contentHash == reference)
    }

    @Test(
        "changes with any real change",
        arguments: [
            ("TEL;TYPE=CELL:+44 20 7946 0000", "TEL;TYPE=CELL:+44 20 7946 0001"),
            ("TEL;TYPE=CELL:+44 20 7946 0000", "TEL;TYPE=WORK:+44 20 7946 0000"),
            ("FN:Ada Lovelace", "FN:Ada King"),
            ("FN:Ada Lovelace", "FN:ada lovelace"),
            ("item1.X-ABLabel:private", "item2.X-ABLabel:private"),
            ("NOTE:Analyst\\, mathematician\\nfirst programmer", "NOTE:Analyst\\, mathematician first programmer"),
        ])
    func detectsRealChanges(before: String, after: String) throws {
        let changed = base.map { $0 == before ? after : $0 }
        #expect(changed != base)
        #expect(try hash(changed) != hash(base))
    }

    @Test("ignores the vCard version, and a 4.0 data: photo equals the same photo in 3.0 form")
    func versionIndependent() throws {
        let three = try makeCard("VERSION:3.0", "UID:p", "FN:Pia", "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQ")
        let four = try makeCard("VERSION:4.0", "UID:p", "FN:Pia", "PHOTO:data:image/jpeg;base64,/9j/4AAQ")
        #expect(three.contentHash == four.contentHash)
        let converted = four.converted(toVersion: "3.0")
        #expect(converted.version == "3.0")
        #expect(converted.first("PHOTO")?.value == "/9j/4AAQ")
        #expect(converted.first("PHOTO")?.parameterValues("ENCODING") == ["b"])
        #expect(converted.first("PHOTO")?.parameterValues("TYPE") == ["JPEG"])
        #expect(converted.contentHash == four.contentHash)
        let otherPhoto = try makeCard("VERSION:4.0", "UID:p", "FN:Pia", "PHOTO:data:image/jpeg;base64,/9j/4BBQ")
        #expect(otherPhoto.contentHash != four.contentHash)
    }

    @Test("an added property is a change")
    func addedPropertyIsAChange() throws {
        #expect(try hash(base + ["EMAIL:work@example.org"]) != hash(base))
    }

    @Test("sorts its lines in the order of their Strings, combining marks and prefixes included")
    func lineOrder() {
        let lines = [
            "", "A", "AB", "Ab", "B", "e", "ex", "e\u{301}", "e\u{301}x", "é", "éx", "f", "FN:e", "FN:e\u{301}", "FN:é",
            "FN:éa", "FN:f", "N:日本", "N:日本語", "N:\u{1F600}", "x\u{301}\u{323}", "x\u{323}\u{301}", "z",
        ].map { Array($0.utf8) }
        for a in lines {
            for b in lines {
                let before = a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in Card.sortsBefore(a[...], b[...]) }
                }
                let strings = (String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
                #expect(before == (strings.0 < strings.1), "\(strings)")
            }
        }
    }
}

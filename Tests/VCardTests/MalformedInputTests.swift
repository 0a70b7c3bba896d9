import Testing

@testable import VCard

@Suite("Malformed input")
struct MalformedInputTests {
    let good1 = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:good-1\r\nFN:Good One\r\nEND:VCARD\r\n"
    let good2 = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:good-2\r\nFN:Good Two\r\nEND:VCARD\r\n"

    /// The bad card sits between two good ones; both good ones must still come through.
    func check(_ bad: String, code: VCardError.Code, line: Int) {
        let results = readAll(good1 + bad + good2)
        #expect(cards(results).compactMap(\.uid) == ["good-1", "good-2"])
        let found = errors(results)
        #expect(found.count == 1)
        #expect(found.first?.code == code)
        #expect(found.first?.line == line, "\(found.first?.description ?? "no error")")
    }

    @Test("content before BEGIN is reported once and skipped")
    func missingBegin() {
        check("VERSION:3.0\r\nFN:Orphan\r\nEND:VCARD\r\n", code: .missingBegin, line: 6)
    }

    @Test("a card cut off by the next BEGIN is reported at its own BEGIN")
    func unterminatedBeforeNextCard() {
        check("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cut\r\n", code: .unterminatedCard, line: 6)
    }

    @Test("a card cut off by the end of the input is reported")
    func unterminatedAtEnd() {
        let results = readAll(good1 + good2 + "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Cut")
        #expect(cards(results).count == 2)
        #expect(errors(results).map(\.code) == [.unterminatedCard])
        #expect(errors(results).first?.line == 11)
    }

    @Test("a gigantic line is rejected without being held in memory, and reading goes on")
    func giganticLine() throws {
        let huge =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nFN:Huge\r\nNOTE:" + String(repeating: "a", count: 3 << 20)
            + "\r\nEND:VCARD\r\n"
        let file = try TemporaryFile(bytes: Array((good1 + huge + good2).utf8))
        let results = readAll(try CardReader(path: file.path))
        #expect(cards(results).compactMap(\.uid) == ["good-1", "good-2"])
        #expect(errors(results).map(\.code) == [.lineTooLong])
        #expect(errors(results).first?.line == 10)
    }

    @Test("a gigantic line made of folded pieces is rejected too")
    func giganticFoldedLine() {
        let piece = "\r\n " + String(repeating: "b", count: 70)
        let huge =
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nFN:Huge\r\nNOTE:a"
            + String(repeating: piece, count: (1 << 20) / 70 + 10) + "\r\nEND:VCARD\r\n"
        let results = readAll(good1 + huge + good2)
        #expect(cards(results).compactMap(\.uid) == ["good-1", "good-2"])
        #expect(errors(results).map(\.code) == [.lineTooLong])
    }

    @Test("a card without FN gets one from N or ORG")
    func derivedName() throws {
        let fromN = try #require(
            readAll("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:n\r\nN:Hopper;Grace;Brewster;Dr.;\r\nEND:VCARD").first
        ).get()
        #expect(fromN.card.displayName == "Dr. Grace Brewster Hopper")
        #expect(fromN.repairs == ["derived FN from N"])
        let fromOrg = try #require(
            readAll("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:o\r\nORG:Plumbing\\, Inc.;Emergencies\r\nEND:VCARD").first
        ).get()
        #expect(fromOrg.card.displayName == "Plumbing, Inc.")
        #expect(fromOrg.card.first("FN")?.value == "Plumbing\\, Inc.")
    }

    @Test("a card without UID gets a fresh one written into it")
    func missingUID() throws {
        let parsed = try #require(readAll("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No Id\r\nEND:VCARD").first).get()
        let uid = try #require(parsed.card.uid)
        #expect(uid.count == 36)
        #expect(parsed.repairs == ["added UID \(uid)"])
        #expect(parsed.card.serialized().contains("UID:\(uid)\r\n"))
        let other = try #require(readAll("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No Id\r\nEND:VCARD").first).get()
        #expect(other.card.uid != uid)
    }

    @Test("a line without a colon is rejected with its line")
    func malformedLine() {
        check(
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nFN:Bad\r\nthis is not a property\r\nEND:VCARD\r\n",
            code: .malformedLine, line: 10)
    }

    @Test("an unreadable file is one clear error")
    func unreadableFile() {
        #expect(throws: VCardError.self) { try CardReader(path: "/nonexistent/contacts.vcf") }
    }
}

@Suite("Malformed corpus files")
struct MalformedCorpusTests {
    @Test(
        "each bad card is reported alone and the good cards around it still read",
        arguments: [
            ("no-begin.vcf", VCardError.Code.missingBegin, true),
            ("unterminated.vcf", .unterminatedCard, false),
        ])
    func badCardSkippedAlone(file: String, code: VCardError.Code, hasCardAfter: Bool) throws {
        let results = try readCorpus("malformed/" + file)
        let uids = cards(results).compactMap(\.uid)
        #expect(uids.first == "good-before")
        #expect(uids.contains("good-after") == hasCardAfter)
        #expect(errors(results).map(\.code) == [code])
        #expect((errors(results).first?.line ?? 0) > 1)
    }
}

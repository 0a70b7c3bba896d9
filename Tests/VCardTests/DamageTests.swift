import Testing

@testable import VCard

/// What a server made of a card, in words (`Card.changes(to:)`), for the read-back after a write.
@Suite("What a server changed in a card, in words")
struct DamageTests {
    @Test("a changed, a dropped and an added property, each said once; a rewrite that changes nothing is no change")
    func changesInWords() throws {
        let sent = try makeCard("UID:u", "FN:Ann", "ADR:;;Main St 1\\; Flat 2;Town;;;", "EMAIL:a@example.org")
        let stored = try makeCard("UID:u", "FN:Ann", "ADR:;;Main St 1; Flat 2;Town;;;", "TEL:+1 555")
        #expect(
            sent.changes(to: stored) == [
                #""ADR:;;Main St 1\; Flat 2;Town" became "ADR:;;Main St 1; Flat 2;Town""#,
                #""EMAIL:a@example.org" was dropped"#, #""TEL:+1 555" was added"#,
            ])
        let rewritten = try makeCard(
            "UID:u", "fn:Ann", "item1.email:a@example.org", "adr:;;Main St 1\\; Flat 2;Town;;;")
        let regrouped = try makeCard(
            "UID:u", "FN:Ann", "ITEM1.EMAIL:a@example.org", "ADR:;;Main St 1\\; Flat 2;Town;;;")
        #expect(rewritten.changes(to: regrouped) == [])
    }

    @Test("something that is no vCard is said as such, its text quoted on one line and cut at 80 characters")
    func notAVCard() throws {
        let sent = try makeCard("UID:u", "FN:Ann")
        let stored = Card(opaque: "(null)\r\n" + String(repeating: "x", count: 100), uid: "u")
        #expect(
            sent.changes(to: stored) == [
                #"it stored something that is no vCard (""# + #"(null)\r\n"# + String(repeating: "x", count: 73)
                    + #"...")"#
            ])
    }

    @Test("more changes than the limit end with their count")
    func limited() throws {
        let sent = try makeCard("UID:u", "FN:Ann", "NOTE:1", "NOTE:2", "NOTE:3", "NOTE:4", "NOTE:5")
        let stored = try makeCard("UID:u", "FN:Ann")
        let said = sent.changes(to: stored)
        #expect(said.count == 4 && said.last == "and 2 more changes")
    }
}

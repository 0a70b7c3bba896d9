import ContactStore
import Sync
import Testing

@Suite("One pass carries a change to every remote")
struct PassRoundsTests {
    /// One pass over `books` in order, as the daemon and `contactbox sync` run it; returns (remote, round) turns.
    func pass(_ fixture: SyncFixture, _ books: [FakeAddressBook]) throws -> [(String, Int)] {
        var turns: [(String, Int)] = []
        try PassRounds.run(count: books.count, storeSeq: fixture.store.currentChangeSeq) { index, round in
            turns.append((books[index].name, round))
            return try fixture.sync(books[index]).outcome == .ok
        }
        return turns
    }

    @Test("a contact added in the third of three remotes reaches the first two in the same pass")
    func changeFromTheLastRemoteReachesTheFirst() throws {
        let fixture = try SyncFixture()
        let books = ["phone", "cloud", "nas"].map { FakeAddressBook(name: $0) }
        _ = try pass(fixture, books)

        books[2].put(cardText("new", "Added On The NAS"), at: "new.vcf")
        let turns = try pass(fixture, books)
        #expect(turns.map(\.0) == ["phone", "cloud", "nas", "phone", "cloud"])
        for book in books { #expect(book.contents.keys.contains("new"), "\(book.name)") }
        #expect(try fixture.localContents() == books[0].contents)

        // In step: the next pass is one listing per remote, and no follow-up.
        let quiet = try pass(fixture, books)
        #expect(quiet.map(\.1) == [1, 1, 1])
    }

    @Test("a remote that failed gets no follow-up, and the rounds are bounded")
    func failedRemoteAndBound() throws {
        let fixture = try SyncFixture()
        let books = ["a", "b", "c"].map { FakeAddressBook(name: $0) }
        books[0].unavailable = true
        books[2].put(cardText("x", "From C"), at: "x.vcf")
        let turns = try pass(fixture, books)
        #expect(turns.map(\.0) == ["a", "b", "c", "b"])
        #expect(books[1].contents.keys.contains("x"))

        var rounds = 0
        var seq: Int64 = 0
        let storeSeq = { seq }
        try PassRounds.run(count: 2, storeSeq: storeSeq) { _, round in
            rounds = round
            seq += 1  // every turn changes the store: the pass still ends
            return true
        }
        #expect(rounds == PassRounds.maxRounds)
    }
}

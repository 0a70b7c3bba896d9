import ContactStore
import Logging
import Sync
import SystemSupport
import TestSupport
import Testing

/// The run journal on a card: a pass that changes nothing writes no row while the last one says as much, and one
/// every six hours; a pass that changes something, or fails, always has its row.
@Suite("The run journal's rows")
struct RunJournalTests {
    @Test("no-op passes: no row within six hours of an ok one, then one; changes and failures always a row")
    func noOpPasses() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(start: 1_800_000_000_000)
        let store = try ContactStore(path: directory.file("contacts.sqlite")) { clock.millis }
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let engine = SyncEngine(store: store, logger: logger)
        let book = FakeAddressBook()
        book.put(cardText("a", "Ann"), at: "a.vcf")
        func sync() throws -> SyncReport { try engine.sync(book, remote: store.row(for: book), options: SyncOptions()) }
        func rows() throws -> Int { try store.recentSyncRuns(limit: 100).count }

        #expect(try sync().counts.downloaded == 1)
        #expect(try rows() == 1, "the first sync changed the store")
        for _ in 0..<10 {
            clock.millis += 15 * 60 * 1000
            #expect(try sync().counts == SyncCounts())
        }
        #expect(try rows() == 2, "the first no-op pass after the download has its row, the next ones none")
        clock.millis += 6 * 3600 * 1000
        _ = try sync()
        #expect(try rows() == 3, "one every six hours")

        book.put(cardText("b", "Bob"), at: "b.vcf")
        clock.millis += 1000
        #expect(try sync().counts.downloaded == 1)
        #expect(try rows() == 4)
        let run = try #require(try store.recentSyncRuns(limit: 1).first)
        #expect(try store.historyCounts(runID: run.id) == [.created: 1], "the history points at the run's row")

        book.unavailable = true
        clock.millis += 1000
        #expect(try sync().outcome == .failed)
        #expect(try rows() == 5, "a failure has its row")
        book.unavailable = false
        clock.millis += 1000
        _ = try sync()
        #expect(try rows() == 6, "the pass after a failure has its row: the journal says the remote is back")
    }
}

/// A wall clock a test moves by hand.
final class ManualClock: @unchecked Sendable {
    var millis: Int64
    init(start: Int64) { millis = start }
}

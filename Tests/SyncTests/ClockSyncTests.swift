import ContactStore
import Logging
import Sync
import SystemSupport
import TestSupport
import Testing

/// A box's clock for these tests: the true time is 29 November 2026, 12:00 UTC; the box's reading may be off.
private final class BoxClock {
    static let truth: Int64 = 1_795_953_600_000
    var offset: Int64 = 0
    var synchronized = true
    var boot = "boot-1"
    var ticks: Int64 = 0

    func now() -> Int64 {
        ticks += 1
        return Self.truth + offset + ticks
    }

    func status() -> ClockStatus {
        ClockStatus(synchronized: synchronized, bootStart: Self.truth - 3_600_000 + offset, boot: boot)
    }
}

@Suite("Conflicts and a clock not yet set")
struct ClockSyncTests {
    static let twoYears: Int64 = 730 * 86_400_000

    private func makeFixture() throws -> (TemporaryDirectory, ContactStore, SyncEngine, BoxClock) {
        let directory = try TemporaryDirectory()
        let clock = BoxClock()
        let store = try ContactStore(
            path: directory.file("contacts.sqlite"), now: { clock.now() }, clock: { clock.status() })
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return (directory, store, SyncEngine(store: store, logger: logger), clock)
    }

    @Test("an edit made on the box before its clock was set waits, then wins over an earlier edit on the server")
    func laterEditOnTheBoxWins() throws {
        let (directory, store, engine, clock) = try makeFixture()
        _ = directory
        let book = FakeAddressBook()
        book.put(cardText("x", "Xena", rev: "20261101T000000Z"), at: "x.vcf")
        try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        // The server's edit, an hour before now.
        book.put(cardText("x", "Xena", note: "theirs", rev: "20261129T110000Z"), at: "x.vcf")
        // The box restarts two years behind, its clock not set, and the household edits Xena on it: later.
        clock.boot = "boot-2"
        clock.synchronized = false
        clock.offset = -Self.twoYears
        try store.upsert(try makeCard("x", "Xena", note: "mine"), reason: "edited", stampingRevision: true)
        let waiting = try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        #expect(waiting.outcome == .ok)
        #expect(waiting.waitingForClock == 1)
        #expect(waiting.counts.conflicts == 0)
        #expect(book.cards["x.vcf"]?.first("NOTE")?.text == "theirs")  // nothing sent
        #expect(try store.contact(uid: "x")?.text.string.contains("NOTE:mine") == true)  // nothing taken
        // Asked again before the clock is set: it still waits (the listing is read again from the same token).
        #expect(try engine.sync(book, remote: store.row(for: book), options: SyncOptions()).waitingForClock == 1)

        // The network sets the clock: the box's edit is dated right, after the server's, and wins.
        clock.offset = 0
        clock.synchronized = true
        let settled = try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        #expect(settled.waitingForClock == 0)
        #expect(settled.counts.conflicts == 1)
        #expect(book.cards["x.vcf"]?.first("NOTE")?.text == "mine")
        let lost = try store.history(uid: "x").filter { $0.reason == "conflict-lost:fake" }
        #expect(lost.count == 1 && lost.first?.vcard.contains("NOTE:theirs") == true)
        // It went out without a REV: none was written while the clock could not say when it was made.
        #expect(book.cards["x.vcf"]?.first("REV") == nil)
        #expect(try store.contact(uid: "x").map { $0.changedAt > BoxClock.truth } == true)
    }

    @Test("a server's card without REV is not dated by a clock not set: the conflict waits for the time")
    func remoteWithoutRevWaits() throws {
        let (directory, store, engine, clock) = try makeFixture()
        _ = directory
        let book = FakeAddressBook()
        book.put(cardText("x", "Xena"), at: "x.vcf")
        try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        try store.upsert(try makeCard("x", "Xena", note: "mine"), reason: "edited", stampingRevision: true)
        book.put(cardText("x", "Xena", note: "theirs"), at: "x.vcf")
        // Restarted three days behind: the edit before the restart is dated right, the server's card not at all.
        clock.boot = "boot-2"
        clock.synchronized = false
        clock.offset = -3 * 86_400_000
        let waiting = try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        #expect(waiting.waitingForClock == 1)
        #expect(book.cards["x.vcf"]?.first("NOTE")?.text == "theirs")
        clock.offset = 0
        clock.synchronized = true
        let settled = try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        #expect(settled.counts.conflicts == 1)
        // Seen now, the server's card is the later: it wins, the box's edit is kept in history.
        #expect(try store.contact(uid: "x")?.text.string.contains("NOTE:theirs") == true)
        #expect(try store.history(uid: "x").contains { $0.reason == "conflict-lost:fake" })
    }

    @Test("an edit dated in a boot that ended before the clock was set is never trusted over the server's")
    func unsureEditLoses() throws {
        let (directory, store, engine, clock) = try makeFixture()
        _ = directory
        let book = FakeAddressBook()
        book.put(cardText("x", "Xena", rev: "20261101T000000Z"), at: "x.vcf")
        try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        clock.boot = "boot-2"
        clock.synchronized = false
        clock.offset = Self.twoYears  // a clock far ahead: its edit would win every conflict
        try store.upsert(try makeCard("x", "Xena", note: "mine"), reason: "edited", stampingRevision: true)
        book.put(cardText("x", "Xena", note: "theirs", rev: "20261129T110000Z"), at: "x.vcf")
        clock.boot = "boot-3"
        clock.offset = 0
        clock.synchronized = true
        let report = try engine.sync(book, remote: store.row(for: book), options: SyncOptions(policy: .newest))
        #expect(report.counts.conflicts == 1)
        #expect(try store.contact(uid: "x")?.text.string.contains("NOTE:theirs") == true)
        #expect(try store.history(uid: "x").contains { $0.reason == "conflict-lost:fake" && $0.vcard.contains("mine") })
    }
}

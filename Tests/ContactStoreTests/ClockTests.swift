import ContactStore
import TestSupport
import Testing
import VCard

@Suite("A clock not yet set")
struct ClockTests {
    static let day: Int64 = 86_400_000
    static let twoYears: Int64 = 730 * day

    @Test("what the box dated before its clock was set is put right when the network sets it in the same boot")
    func correctedInTheSameBoot() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.upsert(try makeCard(uid: "before", name: "Before"), reason: "test")
        let trueStart = fixture.clock.millis
        // A reboot: the box starts two years behind (the last time it saved), not yet set from the network.
        fixture.clock.boot = "boot-2"
        fixture.clock.synchronized = false
        fixture.clock.set(by: -Self.twoYears)
        let run = try store.beginOperation(.edit, note: "an edit on the page")
        try store.upsert(
            try makeCard(uid: "before", name: "Edited", extraLines: ["REV:20240101T000000Z"]), reason: "edited",
            runID: run, stampingRevision: true)
        try store.finishOperation(id: run)
        let edited = try #require(try store.contact(uid: "before"))
        #expect(edited.changedAt < trueStart - Self.twoYears + Self.day)
        #expect(try store.timeTrust(ofChange: edited.changeSeq) == .waiting)
        // No time it cannot vouch for goes into the card: not its own, not the REV the card came with.
        #expect(edited.text.string.contains("REV") == false)
        let row = try #require(try store.history(uid: "before").first)
        #expect(try store.timeTrust(ofHistory: row.id) == .waiting)
        #expect(try store.timeTrust(ofRun: run) == .waiting)

        // The network time: the clock jumps two years forward and is set.
        fixture.clock.set(by: Self.twoYears)
        fixture.clock.synchronized = true
        #expect(try store.settleClock() == 1)
        let corrected = try #require(try store.contact(uid: "before"))
        #expect(corrected.changedAt == edited.changedAt + Self.twoYears)
        #expect(corrected.changedAt > trueStart && corrected.changedAt < fixture.clock.millis)
        #expect(try store.timeTrust(ofChange: corrected.changeSeq) == .trusted)
        let history = try #require(try store.history(uid: "before").first)
        #expect(history.recordedAt == row.recordedAt + Self.twoYears)
        #expect(try store.timeTrust(ofHistory: history.id) == .trusted)
        let corrrectedRun = try #require(try store.syncRun(id: run))
        #expect(corrrectedRun.startedAt > trueStart)
        #expect(try store.timeTrust(ofRun: run) == .trusted)
        #expect(try store.settleClock() == 0)  // once
        // From now on an edit carries its time as REV again.
        try store.upsert(
            try makeCard(uid: "before", name: "Edited again"), reason: "edited", stampingRevision: true)
        #expect(try store.contact(uid: "before")?.text.string.contains("REV:") == true)
    }

    @Test("a boot that ends before the clock is set leaves its times unsure; the next boot's are its own")
    func unsureAfterAnotherBoot() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        fixture.clock.synchronized = false
        fixture.clock.set(by: -3 * Self.day)
        try store.upsert(try makeCard(uid: "a", name: "A"), reason: "test")
        let unsure = try #require(try store.contact(uid: "a"))
        // The power goes; the next boot is set from the network before it writes.
        fixture.clock.boot = "boot-2"
        fixture.clock.set(by: 3 * Self.day)
        fixture.clock.synchronized = true
        try store.upsert(try makeCard(uid: "b", name: "B"), reason: "test")
        #expect(try store.contact(uid: "a")?.changedAt == unsure.changedAt)  // cannot be put right
        #expect(try store.timeTrust(ofChange: unsure.changeSeq) == .unsure)
        #expect(try store.timeTrust(ofChange: try #require(try store.contact(uid: "b")).changeSeq) == .trusted)
        // Set by hand without the network (a second stretch in one boot), then set: each put right by its own step.
        fixture.clock.boot = "boot-3"
        fixture.clock.synchronized = false
        fixture.clock.set(by: -Self.day)
        try store.upsert(try makeCard(uid: "c", name: "C"), reason: "test")
        fixture.clock.set(by: -Self.day)
        try store.upsert(try makeCard(uid: "d", name: "D"), reason: "test")
        let c = try #require(try store.contact(uid: "c"))
        let d = try #require(try store.contact(uid: "d"))
        fixture.clock.set(by: 2 * Self.day)
        fixture.clock.synchronized = true
        #expect(try store.settleClock() == 2)
        #expect(try store.contact(uid: "c")?.changedAt == c.changedAt + Self.day)
        #expect(try store.contact(uid: "d")?.changedAt == d.changedAt + 2 * Self.day)
        #expect(try store.timeTrust(ofChange: unsure.changeSeq) == .unsure)
    }

    @Test("a correction that its write's transaction rolls back is made again at the next write")
    func correctionRolledBack() throws {
        struct Failed: Error {}
        let fixture = try StoreFixture()
        let store = fixture.store
        fixture.clock.synchronized = false
        fixture.clock.set(by: -Self.day)
        try store.upsert(try makeCard(uid: "a", name: "A"), reason: "test")
        let unset = try #require(try store.contact(uid: "a"))
        fixture.clock.set(by: Self.day)
        fixture.clock.synchronized = true
        #expect(throws: Failed.self) {
            try store.transaction {
                try store.upsert(try makeCard(uid: "b", name: "B"), reason: "test")
                throw Failed()
            }
        }
        #expect(try store.contact(uid: "a")?.changedAt == unset.changedAt)
        try store.upsert(try makeCard(uid: "c", name: "C"), reason: "test")
        #expect(try store.contact(uid: "a")?.changedAt == unset.changedAt + Self.day)
        #expect(try store.timeTrust(ofChange: unset.changeSeq) == .trusted)
    }

    @Test("a stretch of thousands of contacts is put right a chunk at a time, every one of them")
    func largeStretch() throws {
        let fixture = try StoreFixture()
        fixture.clock.synchronized = false
        fixture.clock.set(by: -Self.day)
        try fixture.importContacts(250) { "Person \($0)" }
        fixture.clock.set(by: Self.day)
        fixture.clock.synchronized = true
        try fixture.store.settleClock()
        let raw = try fixture.rawDatabase()
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE changed_at > ?", 1_700_000_000_000) == 250)
        #expect(try raw.scalarInt64("SELECT count(*) FROM history WHERE recorded_at > ?", 1_700_000_000_000) == 250)
    }

    @Test("history is not pruned by age while the clock is not set")
    func noPruningByAge() throws {
        let fixture = try StoreFixture()
        try fixture.importContacts(3) { "Person \($0)" }
        fixture.clock.synchronized = false
        fixture.clock.set(by: 400 * Self.day)  // a clock far ahead finds everything old
        let retention = ContactStore.Retention(maxAge: .seconds(90 * 86_400), maxVersions: nil)
        #expect(try fixture.store.pruneHistory(retention) == 0)
        fixture.clock.synchronized = true
        #expect(try fixture.store.pruneHistory(retention) == 3)
    }
}

import ContactStore
import TestSupport
import Testing

@Suite("History: what each change recorded, and the state at a time")
struct HistoryTests {
    @Test("creating, editing, deleting and reviving a contact each leave one row of their kind, tied to the run")
    func kindsAndRuns() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let run = try store.beginOperation(.edit, note: "test")
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "test", runID: run)
        try store.upsert(try makeCard(uid: "a", name: "Ann", email: "ann@example.org"), reason: "edited", runID: run)
        try store.delete(uid: "a", reason: "deleted by test", runID: run)
        try store.upsert(try makeCard(uid: "a", name: "Ann B"), reason: "back", runID: run)
        let rows = try store.history(uid: "a")
        #expect(rows.map(\.kind) == [.created, .deleted, .updated, .created])
        #expect(rows.allSatisfy { $0.runID == run })
        #expect(rows[1].vcard.contains("ann@example.org"))
        #expect(try store.historyCounts(runID: run) == [.created: 2, .updated: 1, .deleted: 1])
    }

    @Test("the state at a time: before the store existed, between two versions, and across delete and recreate")
    func stateAtTime() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let beforeAll = fixture.clock.millis
        try store.upsert(try makeCard(uid: "a", name: "First"), reason: "test")
        let afterFirst = fixture.clock.millis
        try store.upsert(try makeCard(uid: "a", name: "Second"), reason: "test")
        let afterSecond = fixture.clock.millis
        try store.delete(uid: "a", reason: "deleted")
        let afterDelete = fixture.clock.millis
        try store.upsert(try makeCard(uid: "a", name: "Third"), reason: "test")

        #expect(try store.state(uid: "a", at: beforeAll) == .absent)
        #expect(try name(store.state(uid: "a", at: afterFirst)) == "First")
        #expect(try name(store.state(uid: "a", at: afterSecond)) == "Second")
        #expect(try store.state(uid: "a", at: afterDelete) == .absent)
        #expect(try name(store.state(uid: "a", at: fixture.clock.millis)) == "Third")
        #expect(try store.state(uid: "never", at: afterFirst) == .absent)
    }

    @Test("the latest changes of the store come newest first, a page at a time")
    func latestPaged() throws {
        let fixture = try StoreFixture()
        for index in 0..<5 {
            try fixture.store.upsert(try makeCard(uid: "u\(index)", name: "P\(index)"), reason: "test")
        }
        let first = try fixture.store.latestHistory(limit: 3)
        #expect(first.map(\.uid) == ["u4", "u3", "u2"])
        let second = try fixture.store.latestHistory(before: first.last?.id, limit: 3)
        #expect(second.map(\.uid) == ["u1", "u0"])
    }
}

func name(_ state: ContactState) -> String? {
    guard case .live(let text, _) = state else { return nil }
    let vcard = text.string
    return vcard.split(separator: "\r\n").first { $0.hasPrefix("FN:") }.map { String($0.dropFirst(3)) }
}

import ContactStore
import SystemSupport
import TestSupport
import Testing

@Suite("Restore points for the status page")
struct RestorePointsTests {
    @Test("the newest runs that changed the store, newest first, with their remote and counts by kind")
    func newestChangingRuns() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let remote = try store.addRemote(name: "nas", kind: .vdir, url: "/srv/nas")
        let sync = try store.beginSyncRun(remoteID: remote.id)
        try store.upsert(try makeCard(uid: "a", name: "Ann"), reason: "test", runID: sync)
        try store.upsert(try makeCard(uid: "b", name: "Bob"), reason: "test", runID: sync)
        try store.finishSyncRun(id: sync, outcome: .ok, counts: SyncCounts(downloaded: 2))
        // Quiet syncs change nothing: no restore points, and they do not push the others out.
        for _ in 0..<30 {
            let quiet = try store.beginSyncRun(remoteID: remote.id)
            try store.finishSyncRun(id: quiet, outcome: .ok, counts: SyncCounts())
        }
        let edit = try store.beginOperation(.edit, note: "edit a")
        try store.upsert(try makeCard(uid: "a", name: "Ann B."), reason: "test", runID: edit)
        try store.delete(uid: "b", reason: "deleted", runID: edit)
        try store.finishOperation(id: edit)

        let points = try store.restorePoints()
        #expect(points.map(\.run.id) == [edit, sync])
        #expect(points[0].run.kind == .edit)
        #expect(points[0].remoteName == nil)
        #expect(points[0].run.note == "edit a")
        #expect((points[0].created, points[0].updated, points[0].deleted) == (0, 1, 1))
        #expect(points[1].remoteName == "nas")
        #expect((points[1].created, points[1].updated, points[1].deleted) == (2, 0, 0))
        #expect(points[1].run.counts.downloaded == 2)
    }

    @Test("at most `limit`, the newest", arguments: [1, 3, 10])
    func bounded(limit: Int) throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var runs: [Int64] = []
        for index in 0..<12 {
            let run = try store.beginOperation(.edit, note: "edit \(index)")
            try store.upsert(try makeCard(uid: "u\(index)", name: "N \(index)"), reason: "test", runID: run)
            try store.finishOperation(id: run)
            runs.append(run)
        }
        #expect(try store.restorePoints(limit: limit).map(\.run.id) == Array(runs.reversed().prefix(limit)))
        #expect(try StoreFixture().store.restorePoints().isEmpty)
    }
}

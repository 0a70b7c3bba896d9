import SystemSupport
import Testing

@Suite("A sync run's counts")
struct SyncCountsTests {
    @Test("a change by side adds to its total once, and += adds every count, the sides without adding them again")
    func sidesAndSums() {
        var run = SyncCounts(uploaded: 1, downloaded: 2, conflicts: 1)
        run.storeUpdated += 2
        run.serverDeleted += 1
        #expect(run.updated == 2)
        #expect(run.deleted == 1)
        var total = SyncCounts(updated: 5, errors: 1)
        total += run
        total += run
        #expect(total.uploaded == 2)
        #expect(total.downloaded == 4)
        #expect(total.updated == 9)
        #expect(total.deleted == 2)
        #expect(total.conflicts == 2)
        #expect(total.errors == 1)
        #expect(total.storeUpdated == 4)
        #expect(total.serverDeleted == 2)
    }
}

import ContactStore
import SystemSupport
import TestSupport
import Testing
import VCard

@testable import Sync

/// Property-based: random edits, creations and deletions on both sides between syncs, for many seeds. After each
/// sync both sides hold the same contacts, and no version a side held is gone from everywhere: it is live on some
/// side or kept in history.
@Suite("Random histories on both sides")
struct RandomHistoryTests {
    @Test("both sides end equal and nothing is dropped", arguments: 0..<40)
    func convergesWithoutLoss(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed))
        let fixture = try SyncFixture()
        let book = FakeAddressBook(usesTokens: seed % 2 == 0)
        let policy = ConflictPolicy.allCases[seed % 3]
        let options = SyncOptions(policy: policy, confirmDeletions: true)
        var edit = 0
        for _ in 0..<5 {
            // What each side holds when the sync starts must survive it (a version overwritten on the remote before
            // any sync saw it was never the box's to keep).
            var localNow: [String: String] = [:]
            var remoteNow: [String: String] = [:]
            for _ in 0..<(1 + random.next(8)) {
                let uid = "c\(random.next(12))"
                edit += 1
                let note = "edit \(edit)"
                switch random.next(6) {
                case 0, 1:
                    let card = try makeCard(uid, "Person \(uid)", note: note)
                    try fixture.store.upsert(card, reason: "test edit")
                    localNow[uid] = card.contentHash
                case 2, 3:
                    let card = try makeCard(uid, "Person \(uid)", note: note)
                    book.put(card.serialized(), at: Card.fileNameForTest(uid))
                    remoteNow[uid] = card.contentHash
                case 4:
                    try fixture.store.delete(uid: uid, reason: "test delete")
                    localNow[uid] = nil
                default:
                    book.remove(Card.fileNameForTest(uid))
                    remoteNow[uid] = nil
                }
            }
            let report = try fixture.sync(book, options)
            #expect(report.outcome == .ok, "seed \(seed): \(report.message ?? "")")
            #expect(report.counts.errors == 0, "seed \(seed): \(report.errors)")
            let local = try fixture.localContents()
            #expect(local == book.contents, "seed \(seed): sides differ after sync")
            let seen = Array(localNow) + Array(remoteNow)
            for (uid, hash) in seen where local[uid] != hash {
                let kept = try fixture.store.history(uid: uid).contains { $0.hash == hash }
                #expect(kept, "seed \(seed): version \(hash.prefix(8)) of \(uid) was lost")
            }
        }
        // And a sync with nothing new to do changes nothing.
        let quiet = try fixture.sync(book, options)
        #expect(quiet.counts == SyncCounts())
    }
}

extension Card {
    static func fileNameForTest(_ uid: String) -> String { fileName(forUID: uid) }
}

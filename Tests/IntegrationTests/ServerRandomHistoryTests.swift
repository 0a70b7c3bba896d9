import ContactStore
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

/// Property-based, against real servers: random creations, edits and deletions on both sides (the box's store, and
/// the server over curl, as another client), interleaved with syncs. After every sync both sides are equal.
@Suite("Random histories against each real CardDAV server", .serialized, .timeLimit(.minutes(10)))
struct ServerRandomHistoryTests {
    static let seeds = 0..<3

    @Test("after every sync the store and the server hold the same contacts", arguments: TestServerKind.available)
    func bothSidesEqual(kind: TestServerKind) throws {
        for seed in Self.seeds {
            var random = SplitMix64(state: UInt64(seed) &* 7919 &+ UInt64(kind.rawValue.utf8.count))
            let fixture = try ServerSyncFixture(kind)
            let options = SyncOptions(policy: ConflictPolicy.allCases[seed % 3], confirmDeletions: true)
            var edit = 0
            for round in 0..<4 {
                for _ in 0..<(2 + random.next(10)) {
                    let uid = "h\(random.next(15))"
                    edit += 1
                    switch random.next(6) {
                    case 0, 1:
                        try fixture.store.upsert(
                            try card(uid, "Person \(uid)", "NOTE:box edit \(edit)"), reason: "edit")
                    case 2, 3:
                        try fixture.putOnServer(
                            vcard(uid, "Person \(uid)", "NOTE:phone edit \(edit)"), as: "\(uid).vcf")
                    case 4:
                        try fixture.store.delete(uid: uid, reason: "deleted on the box")
                    default:
                        // Another client deleting; a card that is not there answers 404, which is fine here.
                        let status = try fixture.server.request("DELETE", fixture.server.itemURL("\(uid).vcf")).status
                        #expect([200, 204, 404].contains(status))
                    }
                }
                let report = try fixture.sync(options)
                let context = "\(kind) seed \(seed) round \(round)"
                #expect(report.outcome == .ok, "\(context): \(report.message ?? "")")
                #expect(report.counts.errors == 0, "\(context): \(report.errors)")
                #expect(try fixture.localContents() == fixture.serverContents(), "\(context)")
            }
            #expect(try fixture.sync(options).counts == SyncCounts(), "\(kind) seed \(seed): a last sync has nothing")
        }
    }
}

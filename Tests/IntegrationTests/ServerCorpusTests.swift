import ContactStore
import Foundation
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

/// The real-world corpus (Tests/VCardTests/Corpus: other projects' test files and exporters' quirks) through each
/// real server: imported on one box, synced up, downloaded by a second box, every card the same.
@Suite("The vCard corpus through each real CardDAV server", .serialized, .timeLimit(.minutes(10)))
struct ServerCorpusTests {
    static func corpusCards() throws -> [Card] {
        let folder = repositoryRoot + "/Tests/VCardTests/Corpus"
        var files: [String] = []
        for sub in ["", "/real", "/lenient"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder + sub)
            files += names.filter { $0.hasSuffix(".vcf") }.sorted().map { folder + sub + "/" + $0 }
        }
        var cards: [String: Card] = [:]
        for file in files {
            var reader = try CardReader(path: file)
            while let result = reader.next() {
                if case .success(let parsed) = result, let uid = parsed.card.uid { cards[uid] = parsed.card }
            }
        }
        return cards.keys.sorted().compactMap { cards[$0] }
    }

    @Test(
        "every corpus card reaches a second box through the server as it left the first",
        arguments: TestServerKind.available)
    func corpusThroughServer(kind: TestServerKind) throws {
        let cards = try Self.corpusCards()
        #expect(cards.count >= 20)
        let fixture = try ServerSyncFixture(kind)
        _ = try fixture.store.importChunk(cards)
        let up = try fixture.sync()
        #expect(up.outcome == .ok, "\(up.message ?? "")")
        #expect(up.counts.errors == 0, "\(up.errors)")
        #expect(up.refused.isEmpty, "\(up.refused)")
        #expect(up.counts.uploaded == cards.count)

        let second = try fixture.secondBox()
        let down = try second.engine.sync(
            second.book, remote: second.store.row(for: second.book, url: fixture.server.addressBookURL),
            options: SyncOptions())
        #expect(down.counts.downloaded == cards.count)
        let first = try fixture.localContents()
        let other = try ServerSyncFixture.contents(of: second.store)
        let changed = first.keys.filter { other[$0] != first[$0] }.sorted()
        #expect(changed.isEmpty, "\(kind): cards that came back different: \(changed)")
        #expect(try fixture.sync().counts == SyncCounts())
    }
}

import ContactStore
import Foundation
import Remotes
import Sync
import TestSupport
import Testing
import VCard

@Suite(
    "Two remotes converging through the store", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct TwoRemotesTests {
    @Test("a contact added in Radicale reaches the folder and one added in the folder reaches Radicale")
    func radicaleAndFolderConverge() throws {
        let fixture = try RadicaleSyncFixture()
        let folder = try TemporaryDirectory()
        let nas = try VdirAddressBook(name: "nas", folder: folder.path + "/contacts", createIfMissing: true)
        try fixture.putOnServer(vcard("from-cloud", "Cloud Carla"), as: "from-cloud.vcf")
        try vcard("from-nas", "Nas Nina").write(
            toFile: folder.path + "/contacts/from-nas.vcf", atomically: true, encoding: .utf8)

        func syncFolder() throws -> SyncReport {
            try fixture.engine.sync(
                nas, remote: fixture.store.row(for: nas, kind: .vdir, url: nas.folder), options: SyncOptions())
        }
        func syncBoth() throws {
            try fixture.sync()
            #expect(try syncFolder().outcome == .ok)
        }
        try syncBoth()
        try syncBoth()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/contacts").sorted()
        #expect(files == ["from-cloud.vcf", "from-nas.vcf"])
        #expect(Set(try fixture.serverCards().keys) == ["from-cloud", "from-nas"])

        // An edit in the folder travels to the cloud on the same pass order.
        try vcard("from-cloud", "Cloud Carla", "NOTE:edited on the NAS")
            .write(toFile: folder.path + "/contacts/from-cloud.vcf", atomically: true, encoding: .utf8)
        #expect(try syncFolder().outcome == .ok)
        try fixture.sync()
        #expect(try fixture.serverCards()["from-cloud"]?.first("NOTE")?.text == "edited on the NAS")
        #expect(try fixture.localContents() == fixture.serverContents())
    }
}

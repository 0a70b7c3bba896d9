import ContactStore
import Foundation
import Remotes
import Sync
import SystemSupport
import TestSupport
import Testing
import VCard

/// Restore and undo reach real remotes: Radicale and a vCard folder, both synced with one store.
@Suite(
    "Restore and undo across Radicale and a vCard folder", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct UndoSyncTests {
    /// Radicale (the fixture's) and a folder, with the store in between.
    final class TwoRemotes {
        let cloud: RadicaleSyncFixture
        let folder: TemporaryDirectory
        let nas: VdirAddressBook

        init() throws {
            cloud = try RadicaleSyncFixture()
            folder = try TemporaryDirectory()
            nas = try VdirAddressBook(name: "nas", folder: folder.path + "/contacts", createIfMissing: true)
        }

        var store: ContactStore { cloud.store }

        @discardableResult
        func syncCloud(_ options: SyncOptions = SyncOptions()) throws -> SyncReport {
            try cloud.sync(options)
        }

        @discardableResult
        func syncFolder(_ options: SyncOptions = SyncOptions()) throws -> SyncReport {
            try cloud.engine.sync(
                nas, remote: store.row(for: nas, kind: .vdir, url: nas.folder), options: options)
        }

        func syncBoth() throws {
            #expect(try syncCloud().outcome == .ok)
            #expect(try syncFolder().outcome == .ok)
        }

        /// uid → content hash of the cards in the folder.
        func folderContents() throws -> [String: String] {
            var result: [String: String] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: nas.folder) where file.hasSuffix(".vcf") {
                var reader = CardReader(text: try String(contentsOfFile: nas.folder + "/" + file, encoding: .utf8))
                if case .success(let parsed) = reader.next(), let uid = parsed.card.uid {
                    result[uid] = parsed.card.contentHash
                }
            }
            return result
        }

        /// Every side holds the same contacts with the same content.
        func expectConverged(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let local = try cloud.localContents()
            #expect(try cloud.serverContents() == local, sourceLocation: sourceLocation)
            #expect(try folderContents() == local, sourceLocation: sourceLocation)
        }

        func add(_ uids: Range<Int>, name: String = "Person") throws {
            for index in uids {
                try store.upsert(try card("p\(index)", "\(name) \(index)"), reason: "test")
            }
        }
    }

    /// A time after every change so far: the next change is recorded later.
    func momentNow() -> Int64 {
        let moment = wallClockMillis()
        while wallClockMillis() <= moment {}
        return moment
    }

    @Test("a contact deleted on the cloud and synced away comes back everywhere after restore")
    func deletedOnCloudComesBack() throws {
        let remotes = try TwoRemotes()
        try remotes.add(0..<3)
        try remotes.syncBoth()
        let href = try #require(
            try remotes.store.remoteItem(remoteID: remotes.store.row(for: remotes.cloud.book).id, uid: "p1")?.href)
        try remotes.cloud.deleteOnServer(String(href.split(separator: "/").last ?? ""))
        try remotes.syncBoth()
        #expect(try remotes.folderContents()["p1"] == nil)
        #expect(try remotes.store.contact(uid: "p1")?.deleted == true)

        let deletion = try #require(try remotes.store.history(uid: "p1").first { $0.kind == .deleted })
        #expect(deletion.reason == "deleted on radicale")
        let run = try remotes.store.beginOperation(.restore, note: "p1")
        let change = try remotes.store.restore(
            uid: "p1", to: try #require(deletion.stateBefore), reason: "restore", runID: run)
        try remotes.store.finishOperation(id: run)
        #expect(change?.action == .revived)
        try remotes.syncBoth()
        #expect(try remotes.cloud.serverCards()["p1"]?.first("FN")?.text == "Person 1")
        #expect(try remotes.folderContents()["p1"] != nil)
        try remotes.expectConverged()
    }

    @Test("a sync that overwrote 200 contacts is undone on both remotes, and undoing the undo gives the first state")
    func undoTwoHundredOverwrites() throws {
        let remotes = try TwoRemotes()
        try remotes.add(0..<200)
        try remotes.syncBoth()
        let original = try remotes.cloud.localContents()

        // Another client rewrites every card on the cloud; one sync run brings it all in.
        let remoteID = try remotes.store.row(for: remotes.cloud.book).id
        for index in 0..<200 {
            let href = try #require(try remotes.store.remoteItem(remoteID: remoteID, uid: "p\(index)")?.href)
            try remotes.cloud.putOnServer(
                vcard("p\(index)", "Overwritten \(index)"), as: String(href.split(separator: "/").last ?? ""))
        }
        let bad = try remotes.syncCloud()
        #expect(bad.counts.downloaded + bad.counts.updated == 200)
        try remotes.syncFolder()
        let overwritten = try remotes.cloud.localContents()
        try remotes.expectConverged()
        let badRun = try #require(try remotes.store.recentSyncRuns(remoteID: remoteID, limit: 1).first)
        #expect(try remotes.store.historyCounts(runID: badRun.id)[.updated] == 200)

        let undo = try remotes.store.undo(run: badRun.id)
        #expect(undo.reverted == 200 && undo.skipped == 0)
        try remotes.syncBoth()
        #expect(try remotes.cloud.localContents() == original)
        try remotes.expectConverged()

        let redo = try remotes.store.undo(run: try #require(undo.runID))
        #expect(redo.reverted == 200)
        try remotes.syncBoth()
        #expect(try remotes.cloud.localContents() == overwritten)
        try remotes.expectConverged()
    }

    @Test("a restore that would delete 40% of a remote is held until the deletions are confirmed")
    func restoreDeletingFortyPercentIsHeld() throws {
        let remotes = try TwoRemotes()
        try remotes.add(0..<12)
        try remotes.syncBoth()
        let moment = momentNow()
        try remotes.add(12..<20, name: "Later")
        try remotes.syncBoth()
        #expect(try remotes.cloud.serverCards().count == 20)

        let summary = try remotes.store.restore(asOf: moment, note: "test")
        #expect(summary.deleted == 8)  // 8 of 20: 40%
        let held = try remotes.syncCloud()
        #expect(held.outcome == .deletionsHeld)
        #expect(held.deletionsHeld == 8)
        #expect(try remotes.cloud.serverCards().count == 20)
        #expect(try remotes.syncFolder().outcome == .deletionsHeld)
        #expect(try remotes.folderContents().count == 20)

        #expect(try remotes.syncCloud(SyncOptions(confirmDeletions: true)).outcome == .ok)
        #expect(try remotes.syncFolder(SyncOptions(confirmDeletions: true)).outcome == .ok)
        #expect(try remotes.cloud.serverCards().count == 12)
        try remotes.expectConverged()
    }
}

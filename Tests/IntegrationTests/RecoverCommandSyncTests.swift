import ContactStore
import Foundation
import SQLite
import SystemSupport
import TestSupport
import Testing
import VCard

/// A store an SD card damaged, put back from its safety copy with `contactbox recover`, then synced: what changed
/// on the remotes since the copy (an edit and a new card on Radicale, a local edit that went out) comes back, and
/// the store, Radicale and the folder hold the same contacts. Against a real Radicale, through the executables.
@Suite(
    "contactbox recover: a damaged store back from its safety copy, and synced", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct RecoverCommandSyncTests {
    typealias Box = RestoreCommandSyncTests.Box

    /// uid → display name of the store's contacts, from `contactbox export`.
    func storeNames(_ box: Box) throws -> [String: String] {
        let exported = try box.run(["export", "--db", box.db])
        #expect(exported.status == 0, "\(exported.stderr)")
        var names: [String: String] = [:]
        var reader = CardReader(text: exported.stdout)
        while case .success(let parsed)? = reader.next() {
            if let uid = parsed.card.uid { names[uid] = parsed.card.displayName }
        }
        return names
    }

    /// The URL of the card with `uid` in Radicale's book, found in its folder.
    func serverHref(_ box: Box, uid: String) throws -> String? {
        let folder = box.server.collectionFolder()
        return try FileManager.default.contentsOfDirectory(atPath: folder).first { file in
            file.hasSuffix(".vcf")
                && ((try? String(contentsOfFile: folder + "/" + file, encoding: .utf8))?.contains("UID:\(uid)\r\n")
                    ?? false)
        }.map { box.server.addressBookURL() + $0 }
    }

    /// Overwrites the root page of the contacts table of the closed store at `path` with garbage.
    func damage(_ path: String) throws {
        let raw = try Database(path: path)
        let root = try #require(try raw.scalarInt64("SELECT rootpage FROM sqlite_master WHERE name = 'contacts'"))
        let pageSize = try #require(try raw.scalarInt64("PRAGMA page_size"))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: Int(pageSize)))
        try handle.close()
    }

    @Test("damage, recover, sync: every contact a remote held comes back, and nothing is lost")
    func damageRecoverConverge() throws {
        let box = try Box()
        try box.importCards(RestoreCommandSyncTests.cards(0..<30, name: "Person"))
        #expect(try box.run(["sync", "--config", box.config]).status == 0)
        // The daemon's day's copy.
        do {
            let store = try ContactStore(path: box.db)
            guard case .made = try store.makeCopy() else {
                Issue.record("no safety copy")
                return
            }
        }
        // Since the copy: a local edit that went out, an edit and a new card on Radicale.
        try box.importCards(RestoreCommandSyncTests.cards(0..<1, name: "Renamed"), update: true)
        #expect(try box.run(["sync", "--config", box.config]).status == 0)
        let edited = RestoreCommandSyncTests.cards(5..<6, name: "Edited on the server")
        let href = try #require(try serverHref(box, uid: "p5"))
        #expect(try box.server.request("PUT", href, body: edited, contentType: "text/vcard").status < 300)
        let added = RestoreCommandSyncTests.cards(40..<41, name: "New on the server")
        let url = box.server.addressBookURL() + "p40.vcf"
        #expect(try box.server.request("PUT", url, body: added, contentType: "text/vcard").status < 300)

        try damage(box.db)
        let check = try box.run(["check", "--db", box.db])
        #expect(check.status != 0, "\(check.stdout)")

        // Not while the box runs: it holds the folder's lock.
        do {
            let daemon = try #require(StoreLock(storePath: box.db, exclusive: false))
            let refused = try box.run(["recover", "--db", box.db])
            #expect(refused.status == 75, "\(refused.stderr)")
            #expect(refused.stderr.contains("stop it first"), "\(refused.stderr)")
            withExtendedLifetime(daemon) {}
        }
        let recovered = try box.run(["recover", "--db", box.db])
        #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)")
        #expect(recovered.stderr.contains("Recovered"), "\(recovered.stderr)")
        #expect(recovered.stdout.contains("damaged: "), "\(recovered.stdout)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: box.work.path)
            .filter { $0.hasPrefix("contacts.sqlite.damaged-") }
        #expect(aside.contains { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, "\(aside)")
        #expect(try box.run(["check", "--db", box.db]).status == 0)

        let sync = try box.run(["sync", "--config", box.config])
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        let store = try storeNames(box)
        #expect(store.count == 31)
        #expect(store["p0"] == "Renamed 0")
        #expect(store["p5"] == "Edited on the server 5")
        #expect(store["p40"] == "New on the server 40")
        #expect(store == (try box.serverNames()))
        #expect(store == (try box.folderNames()))
        #expect(try box.run(["check", "--db", box.db]).status == 0)
        // A healthy store is left alone.
        let again = try box.run(["recover", "--db", box.db])
        #expect(again.status == 0)
        #expect(again.stderr.contains("nothing to recover"), "\(again.stderr)")
    }
}

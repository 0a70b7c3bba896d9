import ContactStore
import SQLite
import SystemSupport
import Testing

@Suite("Remotes, item states and the sync journal")
struct RemoteTests {
    @Test("a remote is added, found by name and id, listed, and keeps its sync token")
    func remotes() throws {
        let fixture = try StoreFixture()
        let icloud = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/card/")
        let nas = try fixture.store.addRemote(name: "nas", kind: .vdir, url: "/mnt/nas/contacts")
        #expect(try fixture.store.remote(named: "icloud") == icloud)
        #expect(try fixture.store.remote(id: nas.id) == nas)
        #expect(try fixture.store.remote(named: "nobody") == nil)
        #expect(try fixture.store.remotes().map(\.name) == ["icloud", "nas"])

        try fixture.store.setSyncToken("token-1", remoteID: icloud.id)
        #expect(try fixture.store.remote(named: "icloud")?.syncToken == "token-1")
        try fixture.store.setSyncToken(nil, remoteID: icloud.id)
        #expect(try fixture.store.remote(named: "icloud")?.syncToken == nil)

        let duplicate = try #require(throws: SQLiteError.self) {
            try fixture.store.addRemote(name: "icloud", kind: .vdir, url: "/x")
        }
        #expect(duplicate.isConstraintViolation)
    }

    @Test("item states are upserted, found by uid and href, paged by uid, and deleted")
    func itemStates() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/card/")
        let other = try fixture.store.addRemote(name: "nas", kind: .vdir, url: "/mnt/nas")
        try fixture.store.transaction {
            for index in 0..<250 {
                try fixture.store.upsertRemoteItem(
                    RemoteItemState(
                        remoteID: remote.id, uid: "uid-\(1000 + index)", href: "/card/\(index).vcf", etag: "\"e1\"",
                        hash: "h\(index)"))
            }
        }
        try fixture.store.upsertRemoteItem(
            RemoteItemState(remoteID: other.id, uid: "uid-1000", href: "uid-1000.vcf", etag: nil, hash: "h"))

        let updated = RemoteItemState(
            remoteID: remote.id, uid: "uid-1005", href: "/card/moved.vcf", etag: "\"e2\"", hash: "h-new")
        try fixture.store.upsertRemoteItem(updated)
        #expect(try fixture.store.remoteItem(remoteID: remote.id, uid: "uid-1005") == updated)
        #expect(try fixture.store.remoteItem(remoteID: remote.id, href: "/card/moved.vcf") == updated)
        #expect(try fixture.store.remoteItem(remoteID: remote.id, href: "/card/5.vcf") == nil)
        #expect(try fixture.store.remoteItem(remoteID: other.id, uid: "uid-1000")?.etag == nil)

        var uids: [String] = []
        var after: String?
        while case let page = try fixture.store.remoteItems(remoteID: remote.id, afterUID: after),
            let last = page.last
        {
            #expect(page.count <= 100)
            uids += page.map(\.uid)
            after = last.uid
        }
        #expect(uids == (0..<250).map { "uid-\(1000 + $0)" })
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 250)

        let clash = try #require(throws: SQLiteError.self) {
            try fixture.store.upsertRemoteItem(
                RemoteItemState(remoteID: remote.id, uid: "uid-9999", href: "/card/7.vcf", etag: nil, hash: "h"))
        }
        #expect(clash.isConstraintViolation)

        #expect(try fixture.store.deleteRemoteItem(remoteID: remote.id, uid: "uid-1005"))
        #expect(try fixture.store.deleteRemoteItem(remoteID: remote.id, uid: "uid-1005") == false)
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 249)
    }

    @Test("removing a remote removes its item states and keeps its journal entries")
    func deleteRemoteCascades() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/card/")
        try fixture.store.upsertRemoteItem(
            RemoteItemState(remoteID: remote.id, uid: "u", href: "/u.vcf", etag: "e", hash: "h"))
        let run = try fixture.store.beginSyncRun(remoteID: remote.id)
        #expect(try fixture.store.deleteRemote(id: remote.id))
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 0)
        #expect(try fixture.store.remote(id: remote.id) == nil)
        let runs = try fixture.store.recentSyncRuns()
        #expect(runs.map(\.id) == [run])
        #expect(runs.first?.remoteID == nil)
        #expect(try fixture.store.check() == [])
    }

    @Test("a renamed remote keeps its item states, token and runs; a taken name is refused")
    func renameRemote() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/card/")
        _ = try fixture.store.addRemote(name: "nas", kind: .vdir, url: "/mnt/nas")
        try fixture.store.upsertRemoteItem(
            RemoteItemState(remoteID: remote.id, uid: "u", href: "/u.vcf", etag: "e", hash: "h"))
        try fixture.store.setSyncToken("token-1", remoteID: remote.id)
        let run = try fixture.store.beginSyncRun(remoteID: remote.id)
        try fixture.store.renameRemote(id: remote.id, to: "family")
        #expect(try fixture.store.remote(named: "icloud") == nil)
        let renamed = try #require(try fixture.store.remote(named: "family"))
        #expect(renamed.id == remote.id)
        #expect(renamed.syncToken == "token-1")
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 1)
        #expect(try fixture.store.recentSyncRuns(remoteID: remote.id, limit: 1).map(\.id) == [run])
        #expect(throws: (any Error).self) { try fixture.store.renameRemote(id: remote.id, to: "nas") }
        #expect(try fixture.store.remote(named: "family")?.id == remote.id)
    }

    @Test("sync runs are journalled at start, finished with counts, listed newest first, and interrupted ones marked")
    func syncRuns() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/card/")
        let first = try fixture.store.beginSyncRun(remoteID: remote.id)
        let counts = SyncCounts(uploaded: 1, downloaded: 2, updated: 3, deleted: 4, conflicts: 5, errors: 6)
        try fixture.store.finishSyncRun(id: first, outcome: .deletionsHeld, counts: counts, message: "too many")
        let second = try fixture.store.beginSyncRun(remoteID: remote.id)
        let third = try fixture.store.beginSyncRun(remoteID: nil)

        let runs = try fixture.store.recentSyncRuns()
        #expect(runs.map(\.id) == [third, second, first])
        let finished = try #require(runs.last)
        #expect(finished.outcome == .deletionsHeld)
        #expect(finished.counts == counts)
        #expect(finished.message == "too many")
        #expect((finished.finishedAt ?? 0) > finished.startedAt)
        #expect(runs[1].outcome == nil)
        #expect(runs[1].finishedAt == nil)
        #expect(try fixture.store.recentSyncRuns(remoteID: remote.id, limit: 1).map(\.id) == [second])

        #expect(try fixture.store.markUnfinishedSyncRunsInterrupted() == 2)
        let after = try fixture.store.recentSyncRuns()
        #expect(after.prefix(2).allSatisfy { $0.outcome == .interrupted && $0.finishedAt != nil })
        #expect(after.last?.outcome == .deletionsHeld)

        let missing = try #require(throws: ContactStoreError.self) {
            try fixture.store.finishSyncRun(id: 999, outcome: .ok, counts: SyncCounts())
        }
        #expect(missing.code == .invalidArgument)
    }

    @Test("a remote pointed elsewhere forgets its items, token, watermark, discovery and concurrency, not others'")
    func resetRemote() throws {
        let fixture = try StoreFixture()
        let remote = try fixture.store.addRemote(name: "icloud", kind: .carddav, url: "https://example.org/a/")
        let other = try fixture.store.addRemote(name: "nas", kind: .vdir, url: "/mnt/nas")
        try fixture.store.transaction {
            for index in 0..<250 {
                for owner in [remote.id, other.id] {
                    try fixture.store.upsertRemoteItem(
                        RemoteItemState(remoteID: owner, uid: "u\(index)", href: "\(index).vcf", etag: "e", hash: "h"))
                }
            }
        }
        try fixture.store.setSyncToken("token-1", remoteID: remote.id)
        try fixture.store.setSyncedSeq(42, remoteID: remote.id)
        try fixture.store.setDiscovery(
            bookURL: "https://example.org/a/book/", capabilities: ["sync"], remoteID: remote.id)
        try fixture.store.setWriteConcurrency(0, remoteID: remote.id)

        try fixture.store.resetRemote(id: remote.id, url: "https://example.org/b/")
        let reset = try #require(try fixture.store.remote(id: remote.id))
        #expect(reset.url == "https://example.org/b/")
        #expect(reset.syncToken == nil)
        #expect(reset.syncedSeq == 0)
        #expect(reset.bookURL == nil)
        #expect(reset.capabilities.isEmpty)
        #expect(reset.writeConcurrency == nil)  // what the old server took says nothing of the new one
        #expect(try fixture.store.remoteItemCount(remoteID: remote.id) == 0)
        #expect(try fixture.store.remoteItemCount(remoteID: other.id) == 250)
    }
}

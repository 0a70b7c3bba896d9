import Config
import Glibc
import Logging
import SQLite
import Sync
import Synchronization
import TestSupport
import Testing
import VCard

@testable import Appliance
@testable import ContactStore

/// A pass's news, in order, and what the main loop's core makes of them: what the page would show.
final class PassNews {
    var events: [SyncWorker.Event] = []
    var core = ApplianceCore(sync: SyncSettings(), remotes: 1, now: 0)

    func report(_ event: SyncWorker.Event) {
        events.append(event)
        _ = core.handle(.worker(event), at: .current())
    }

    var shown: StatusBoard.Contents { core.shown }

    var progress: [ApplianceState.SyncActivity] {
        events.compactMap { if case .progress(let activity) = $0 { activity } else { nil } }
    }
}

/// A store with `count` contacts and a configuration with one folder remote, in a fresh temporary directory.
final class PassFixture {
    let directory: TemporaryDirectory
    let store: ContactStore
    let news = PassNews()
    var configuration: Configuration
    var online = true

    init(contacts count: Int, folderExists: Bool = true) throws {
        directory = try TemporaryDirectory()
        store = try ContactStore(path: directory.file("contacts.sqlite"))
        var cards: [Card] = []
        for index in 0..<count {
            let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:uid-\(index)\r\nFN:Person \(index)\r\nEND:VCARD\r\n"
            var reader = CardReader(text: text)
            if case .success(let parsed) = reader.next() { cards.append(parsed.card) }
        }
        for start in stride(from: 0, to: cards.count, by: ContactStore.chunkLimit) {
            _ = try store.importChunk(Array(cards[start..<min(start + ContactStore.chunkLimit, cards.count)]))
        }
        let folder = directory.file("nas")
        if folderExists { mkdir(folder, 0o700) }
        configuration = Configuration(
            storePath: directory.file("contacts.sqlite"),
            remotes: [RemoteSettings(name: "nas", kind: .vdir(folder: folder, createFolder: false))])
    }

    var folder: String { directory.file("nas") }

    func makePass() -> SyncPass {
        let online = online
        let news = news
        return SyncPass(
            store: store, news: { news.report($0) }, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            userAgent: "test", isOnline: { online })
    }

    func run(_ request: SyncRequest = SyncRequest(.button)) -> SyncPass.Result {
        makePass().run(request, configuration: configuration) { false }
    }

    func files() -> [String] {
        directoryEntries(folder).filter { $0.hasSuffix(".vcf") }
    }

    func emptyFolder() {
        for name in files() { unlink(folder + "/" + name) }
    }
}

@Suite("A sync pass and the appliance's state")
struct SyncPassTests {
    @Test("a pass sends the store to the folder, ends idle, and its news count it for the page")
    func success() throws {
        let fixture = try PassFixture(contacts: 150)
        let result = fixture.run()
        #expect(result == SyncPass.Result(state: .idle, schedule: .done))
        #expect(fixture.files().count == 150)
        let snapshot = fixture.news.shown
        #expect(snapshot.contacts == 150)
        #expect(snapshot.remotes.map(\.name) == ["nas"])
        #expect(snapshot.remotes.first?.lastResult == "ok")
        #expect(snapshot.remotes.first?.counts.uploaded == 150)
        #expect(snapshot.counters.syncRuns["ok"] == 1)
        #expect(snapshot.lastSync != nil)
        // /metrics' contactbox_last_sync_duration_seconds: the pass's own length, measured by the pass
        let lastPass = try #require(snapshot.counters.lastPass)
        #expect(lastPass >= .zero && lastPass < .seconds(60))
    }

    @Test("a pass reports each remote and how far it is")
    func progressReported() throws {
        let fixture = try PassFixture(contacts: 150)
        _ = fixture.run()
        let reported = fixture.news.progress
        #expect(reported.first == ApplianceState.SyncActivity(remote: "nas"))
        #expect(reported.contains(ApplianceState.SyncActivity(remote: "nas", phase: "Sending", done: 100, total: 150)))
        #expect(reported.last == ApplianceState.SyncActivity(remote: "nas", phase: "Sending", done: 150, total: 150))
        // What the page and systemd's status line say, as before the worker sent events.
        #expect(reported.last.map { ApplianceState.syncing($0).summary } == "Syncing nas: sending 150 of 150")
    }

    @Test("a paused remote is kept but not synced: nothing written to its folder, no result for it")
    func pausedRemote() throws {
        let fixture = try PassFixture(contacts: 5)
        fixture.configuration.remotes[0].paused = true
        #expect(fixture.run() == SyncPass.Result(state: .idle, schedule: .done))
        #expect(fixture.files().isEmpty)
        #expect(!fixture.news.events.contains { if case .remoteSynced = $0 { true } else { false } })
        fixture.configuration.remotes[0].paused = false
        _ = fixture.run()
        #expect(fixture.files().count == 5)
    }

    /// A pass that found the store's disk read-only: the store's attention saying so, retried, nothing synced.
    func expectReadOnlyDisk(
        _ result: SyncPass.Result, _ fixture: PassFixture, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .needsAttention(.storage, let reason) = result.state else {
            Issue.record("not the store's attention: \(result.state)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.hasPrefix("The disk is read-only"), sourceLocation: sourceLocation)
        #expect(result.schedule == .retryLater, sourceLocation: sourceLocation)
        #expect(fixture.files().isEmpty, sourceLocation: sourceLocation)
    }

    @Test("a store on a file system gone read-only: nothing synced, the store's attention saying so, retried")
    func readOnlyDisk() throws {
        let fixture = try PassFixture(contacts: 5)
        let pass = fixture.makePass()
        let asked = Mutex<[String]>([])
        pass.isReadOnly = { path in
            asked.withLock { $0.append(path) }
            return true
        }
        expectReadOnlyDisk(pass.run(SyncRequest(.button), configuration: fixture.configuration) { false }, fixture)
        #expect(asked.withLock { $0 } == [fixture.directory.path])
        #expect(!fixture.news.events.contains { if case .remoteSynced = $0 { true } else { false } })
        // Writable again: the next pass syncs.
        pass.isReadOnly = { _ in false }
        #expect(pass.run(SyncRequest(.interval), configuration: fixture.configuration) { false }.state == .idle)
        #expect(fixture.files().count == 5)
    }

    @Test("a store whose writes fail (ext4 turned read-only, its mount still read-write): the same, retried")
    func storeWritesFail() throws {
        let fixture = try PassFixture(contacts: 5)
        let pass = fixture.makePass()
        pass.isReadOnly = { _ in false }
        // SQLITE_READONLY at the pass's first write, as the kernel's EROFS gives; its EIO gives SQLITE_IOERR.
        try fixture.store.db.execute("PRAGMA query_only = ON")
        expectReadOnlyDisk(pass.run(SyncRequest(.button), configuration: fixture.configuration) { false }, fixture)
        #expect(SQLiteError(code: 1034, message: "disk I/O error").isWriteFailure)  // SQLITE_IOERR_FSYNC
        // Writable again: the next pass syncs.
        try fixture.store.db.execute("PRAGMA query_only = OFF")
        #expect(pass.run(SyncRequest(.interval), configuration: fixture.configuration) { false }.state == .idle)
        #expect(fixture.files().count == 5)
    }

    @Test("a folder that is gone needs attention (unreachable), names the folder, and is retried")
    func missingFolder() throws {
        let fixture = try PassFixture(contacts: 3, folderExists: false)
        let result = fixture.run()
        guard case .needsAttention(.unreachable, let reason) = result.state else {
            Issue.record("expected unreachable, got \(result.state)")
            return
        }
        #expect(reason.contains(fixture.folder))
        #expect(result.schedule == .retryLater)
        #expect(fixture.news.shown.remotes.first?.lastResult == "failed")
    }

    @Test("a folder emptied behind the store's back holds the deletions until confirmed")
    func deletionsHeld() throws {
        let fixture = try PassFixture(contacts: 40)
        _ = fixture.run()
        fixture.emptyFolder()
        let held = fixture.run()
        guard case .needsAttention(.deletionsHeld, _) = held.state else {
            Issue.record("expected held deletions, got \(held.state)")
            return
        }
        #expect(try fixture.store.count() == 40)
        let confirmed = fixture.run(SyncRequest(.longPress, confirmDeletions: true))
        #expect(confirmed.state == .idle)
        #expect(try fixture.store.count() == 0)
        #expect(fixture.news.shown.contacts == 0)
    }

    @Test("a password file that is missing needs attention for the login, and says which file")
    func missingPassword() throws {
        let fixture = try PassFixture(contacts: 1)
        let passwordFile = fixture.directory.file("nope.password")
        fixture.configuration.remotes = [
            RemoteSettings(
                name: "icloud",
                kind: .carddav(
                    url: "https://127.0.0.1:9/", username: "someone", password: .file(passwordFile),
                    authScheme: .basic, caFile: nil, caPath: nil, concurrency: 1))
        ]
        let result = fixture.run()
        guard case .needsAttention(.login, let reason) = result.state else {
            Issue.record("expected a login problem, got \(result.state)")
            return
        }
        #expect(reason.contains(passwordFile))
    }

    @Test("a stop asked for between chunks ends the pass early and the next one finishes the work")
    func stopBetweenChunks() throws {
        let fixture = try PassFixture(contacts: 350)
        // Asked first before the remote, then after the listing and after each chunk: stop after one chunk.
        let asked = Mutex(0)
        let result = fixture.makePass().run(SyncRequest(.button), configuration: fixture.configuration) {
            asked.withLock {
                $0 += 1
                return $0 > 3
            }
        }
        #expect(result.state == .idle)
        #expect(fixture.news.shown.remotes.first?.lastResult == "interrupted")
        #expect((1..<350).contains(fixture.files().count))
        _ = fixture.run()
        #expect(fixture.files().count == 350)
    }

    @Test("the history of earlier runs is reported before the first pass")
    func history() throws {
        let fixture = try PassFixture(contacts: 5)
        _ = fixture.run()
        let later = PassNews()
        let pass = SyncPass(
            store: fixture.store, news: { later.report($0) },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, userAgent: "test", isOnline: { true })
        try pass.loadHistory(fixture.configuration)
        #expect(later.shown.remotes.first?.lastResult == "ok")
        #expect(later.shown.remotes.first?.counts.uploaded == 5)
        #expect(later.shown.contacts == 5)
    }
}

@Suite("The sync worker")
struct SyncWorkerTests {
    @Test("requests made while the worker is busy merge into one pass")
    func coalescing() throws {
        let fixture = try PassFixture(contacts: 10)
        let wake = try WakeUp()
        let worker = try SyncWorker(configuration: fixture.configuration, mainLoop: wake)
        // Five requests before the thread runs: one pass with every reason.
        for trigger in [SyncTrigger.button, .button, .statusPage, .interval, .button] {
            worker.request(SyncRequest(trigger))
        }
        let storePath = fixture.directory.file("contacts.sqlite")
        try worker.start(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, storePath: storePath) {
            report in
            SyncPass(
                store: try ContactStore(path: storePath), news: report,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, userAgent: "test",
                isOnline: { true })
        }
        var events: [SyncWorker.Event] = []
        for _ in 0..<500 where !events.contains(where: { if case .passFinished = $0 { true } else { false } }) {
            wake.wait(atMost: .milliseconds(20))
            events += worker.takeEvents()
        }
        #expect(worker.stop(waitingAtMost: .seconds(2)))
        events += worker.takeEvents()
        let started = events.compactMap { if case .passStarted(let request) = $0 { request } else { nil } }
        #expect(started.count == 1)
        #expect(started.first?.triggers == [.button, .statusPage, .interval])
        #expect(events.last == .passFinished(SyncPass.Result(state: .idle, schedule: .done)))
        // Where the pass was reached the main loop as events.
        #expect(events.contains { if case .progress(let activity) = $0 { activity.remote == "nas" } else { false } })
        #expect(fixture.files().count == 10)
    }

    @Test("a store that cannot be opened is reported, not a crash")
    func storeFails() throws {
        let fixture = try PassFixture(contacts: 0)
        let wake = try WakeUp()
        let worker = try SyncWorker(configuration: fixture.configuration, mainLoop: wake)
        try worker.start(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, storePath: "/nowhere") { _ in
            throw ApplianceError("disk on fire")
        }
        var events: [SyncWorker.Event] = []
        for _ in 0..<200 where events.isEmpty {
            wake.wait(atMost: .milliseconds(20))
            events += worker.takeEvents()
        }
        #expect(events == [.storeFailed("disk on fire")])
        #expect(worker.stop(waitingAtMost: .seconds(1)))
    }

    @Test("a store the start's check finds damaged is left alone: a pass asked for before is not run")
    func damagedAtStart() throws {
        let directory = try TemporaryDirectory()
        let storePath = directory.file("contacts.sqlite")
        do {
            let store = try ContactStore(path: storePath)
            var reader = CardReader(text: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:Ann\r\nEND:VCARD\r\n")
            if case .success(let parsed) = reader.next() { try store.upsert(parsed.card, reason: "test") }
        }
        // The contacts table's root page overwritten, as a failing card returns it.
        let root = try #require(
            try Database(path: storePath).scalarInt64("SELECT rootpage FROM sqlite_master WHERE name = 'contacts'"))
        let descriptor = open(storePath, O_WRONLY)
        let garbage = [UInt8](repeating: 0xA5, count: 4096)
        #expect(pwrite(descriptor, garbage, garbage.count, off_t((root - 1) * 4096)) == garbage.count)
        close(descriptor)

        let wake = try WakeUp()
        let worker = try SyncWorker(
            configuration: Configuration(storePath: storePath, remotes: []), mainLoop: wake)
        worker.request(SyncRequest(.startup))
        try worker.start(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, storePath: storePath) {
            report in
            SyncPass(
                store: try ContactStore(path: storePath), news: report,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, userAgent: "test", isOnline: { true })
        }
        var events: [SyncWorker.Event] = []
        let checked = { events.contains { if case .storeChecked = $0 { true } else { false } } }
        for _ in 0..<500 where !checked() {
            wake.wait(atMost: .milliseconds(20))
            events += worker.takeEvents()
        }
        // Had the worker taken the pass, it would have started at once after the check.
        wake.wait(atMost: .milliseconds(500))
        events += worker.takeEvents()
        #expect(worker.stop(waitingAtMost: .seconds(2)))
        events += worker.takeEvents()
        let problems = events.compactMap { if case .storeChecked(let problems, _, _) = $0 { problems } else { nil } }
        #expect(problems.count == 1 && !(problems.first?.isEmpty ?? true), "\(events)")
        #expect(!events.contains { if case .passStarted = $0 { true } else { false } }, "\(events)")
    }

    @Test("a store too damaged to open is reported as damaged, with the copies there are, so the box shows recover")
    func storeDamaged() throws {
        let fixture = try PassFixture(contacts: 0)
        let wake = try WakeUp()
        let worker = try SyncWorker(configuration: fixture.configuration, mainLoop: wake)
        try worker.start(logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, storePath: "/nowhere") { _ in
            throw ContactStoreError(.damaged, "/nowhere is damaged: database disk image is malformed")
        }
        var events: [SyncWorker.Event] = []
        for _ in 0..<200 where events.isEmpty {
            wake.wait(atMost: .milliseconds(20))
            events += worker.takeEvents()
        }
        #expect(
            events == [.storeChecked(problems: ["/nowhere is damaged: database disk image is malformed"], copies: [])])
        #expect(worker.stop(waitingAtMost: .seconds(1)))
    }
}

@Suite("History retention after a sync pass")
struct SyncPassRetentionTests {
    @Test("a pass prunes the history to the configured versions per contact")
    func passPrunes() throws {
        let fixture = try PassFixture(contacts: 2)
        for index in 0..<4 {
            var reader = CardReader(
                text: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:uid-0\r\nFN:Renamed \(index)\r\nEND:VCARD\r\n")
            if case .success(let parsed) = reader.next() { try fixture.store.upsert(parsed.card, reason: "test") }
        }
        #expect(try fixture.store.history(uid: "uid-0").count == 5)
        fixture.configuration.history = HistorySettings(maxAge: .seconds(90 * 86_400), maxVersions: 2)
        #expect(fixture.run().state == .idle)
        #expect(try fixture.store.history(uid: "uid-0").count == 2)
        #expect(try fixture.store.history(uid: "uid-1").count == 1)
    }

    @Test("a remote renamed on the page keeps its sync state; one removed loses it, and the contacts stay")
    func remoteChanges() throws {
        let fixture = try PassFixture(contacts: 3)
        #expect(fixture.run().state == .idle)
        let synced = try #require(try fixture.store.remote(named: "nas"))
        #expect(try fixture.store.remoteItemCount(remoteID: synced.id) == 3)
        let pass = fixture.makePass()

        pass.apply([.renamed(from: "nas", to: "kitchen")])
        #expect(try fixture.store.remote(named: "nas") == nil)
        #expect(try fixture.store.remote(named: "kitchen")?.id == synced.id)
        fixture.configuration.remotes[0].name = "kitchen"
        fixture.emptyFolder()
        // The same state goes on: the folder emptied behind its back is three deletions held, not a first sync
        // that would send the three contacts again.
        let after = fixture.run().state
        guard case .needsAttention(.deletionsHeld, _) = after else {
            Issue.record("the renamed remote started afresh: \(after)")
            return
        }
        #expect(fixture.files().isEmpty)
        #expect(try fixture.store.remote(named: "kitchen")?.id == synced.id)

        pass.apply([.removed("kitchen"), .removed("never-there")])
        #expect(try fixture.store.remote(named: "kitchen") == nil)
        #expect(try fixture.store.remoteItemCount(remoteID: synced.id) == 0)
        #expect(try fixture.store.count() == 3)
        #expect(try fixture.store.recentSyncRuns(limit: 5).count >= 2, "the runs stay in the history")
    }
}

@Suite("The store's care on the worker: its check and the day's safety copy")
struct StoreCareTests {
    func checks(_ news: PassNews) -> [(problems: [String], copies: Int)] {
        news.events.compactMap {
            if case .storeChecked(let problems, let copies, _) = $0 { (problems, copies.count) } else { nil }
        }
    }

    @Test("a sound store is checked and copied, and copied again only once it changed; the page shows the copies")
    func sound() throws {
        let fixture = try PassFixture(contacts: 150)
        let pass = fixture.makePass()
        pass.checkStore()
        #expect(checks(fixture.news).map(\.problems) == [[]])
        pass.careForStore(shouldStop: { false })
        #expect(checks(fixture.news).map(\.copies) == [0, 0, 1])
        #expect(fixture.news.shown.copies.count == 1)
        #expect(fixture.news.shown.copies[0].bytes > 0)
        #expect(fixture.news.core.state == .starting)
        // Nothing changed: no copy, nothing written.
        pass.careForStore(shouldStop: { false })
        #expect(checks(fixture.news).map(\.copies) == [0, 0, 1, 1])
        #expect(fixture.news.shown.copies.count == 1)
        // Changed since: a new newest, the last one the older.
        var reader = CardReader(text: "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:uid-1\r\nFN:Renamed\r\nEND:VCARD\r\n")
        guard case .success(let parsed) = reader.next() else {
            Issue.record("the card does not parse")
            return
        }
        try fixture.store.upsert(parsed.card, reason: "test")
        pass.careForStore(shouldStop: { false })
        #expect(checks(fixture.news).map(\.copies) == [0, 0, 1, 1, 1, 2])
        #expect(fixture.news.shown.copies.count == 2)
        #expect(fixture.news.shown.copies[0].madeAt >= fixture.news.shown.copies[1].madeAt)
    }
}

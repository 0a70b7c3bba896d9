import ContactStore
import FrontPanel
import Glibc
import Logging
import SQLite
import StatusServer
import SystemSupport
import TestSupport
import Testing

@testable import Appliance

/// The daemon's main loop over a store its start finds damaged (the contacts table's root page overwritten, as a
/// failing card returns it), a folder remote, a `SimulatedPanel`, and no status server: the page's requests go in
/// where the server puts them. With a safety copy made before `renamed` contacts were renamed in the folder and
/// synced into the store: what the pass after a recover must bring back.
final class DamagedStoreFixture: DrivenDaemon {
    let pass: PassFixture
    let panel = SimulatedPanel()
    let daemon: Daemon
    /// The safety copy made before the renames; nil when the fixture makes none.
    let copy: StoreCopy?
    static let renamed = 5

    init(withCopy: Bool = true) throws {
        let pass = try PassFixture(contacts: 20)
        #expect(pass.run().state == .idle)
        #expect(pass.files().count == 20)
        var made: StoreCopy?
        if withCopy, case .made(let copy) = try pass.store.makeCopy() { made = copy }
        #expect((made != nil) == withCopy)
        for name in pass.files().sorted().prefix(Self.renamed) {
            let path = pass.folder + "/" + name
            let text = try #require(readText(path))
            try writeText(path, text.replacingOccurrences("FN:Person", with: "FN:Renamed person"))
        }
        #expect(pass.run().state == .idle)
        #expect(try Self.renamedIn(pass.store) == Self.renamed)
        try Self.damage(pass.configuration.storePath)
        self.pass = pass
        copy = made
        daemon = try Daemon.started(pass, panel: panel)
        turn("the damage found") { $0.damage != nil && $0.attention == "storage" }
    }

    deinit {
        _ = daemon.worker.stop(waitingAtMost: .seconds(5))
    }

    var storePath: String { pass.configuration.storePath }

    func arm() {
        daemon.pageRequests.post(.undo(.recover))
        turn("armed") { $0.undo?.phase == .armed }
    }

    /// The files beside the store that a recover moved aside.
    func setAside() -> [String] {
        directoryEntries(pass.directory.path).filter { $0.contains(".damaged-") }
    }

    static func renamedIn(_ store: ContactStore) throws -> Int {
        try store.contactLines(after: nil, search: "renamed").count
    }

    /// Empties the write-ahead log into the file, then overwrites the first page of the contacts table there.
    static func damage(_ path: String) throws {
        let raw = try Database(path: path)
        try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let root = try #require(try raw.scalarInt64("SELECT rootpage FROM sqlite_master WHERE name = 'contacts'"))
        let pageSize = try #require(try raw.scalarInt64("PRAGMA page_size"))
        let descriptor = open(path, O_WRONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let garbage = [UInt8](repeating: 0xA5, count: Int(pageSize))
        #expect(pwrite(descriptor, garbage, garbage.count, off_t((root - 1) * pageSize)) == garbage.count)
    }
}

@Suite("The damaged store recovered from the page, confirmed by the button", .timeLimit(.minutes(2)))
struct DaemonRecoverTests {
    @Test("offered, armed, a long press: the copy is put back, the store is sound, the pass brings back the changes")
    func armedThenLongPress() throws {
        let fixture = try DamagedStoreFixture()
        let copy = try #require(fixture.copy)
        #expect(fixture.snapshot.damage?.copy?.madeAt == copy.madeAt / 1000)
        #expect(fixture.snapshot.summary.contains("on the status page"))
        #expect(!ContactStore.problems(atPath: fixture.storePath).isEmpty)
        fixture.arm()
        // Nothing changed yet: the page alone cannot replace the store.
        #expect(fixture.setAside().isEmpty)
        #expect(fixture.daemon.panel.look == PanelState.awaitingLongPress.look)
        #expect(fixture.snapshot.undo?.recover?.copyMadeAt == copy.madeAt / 1000)

        fixture.daemon.send(.button(.long))
        // The pass asked for at the start (and refused the damaged store) may run first: a pass, then the recover's.
        fixture.turn("the recover and its pass") {
            $0.undo?.phase == .done && $0.counters.syncRuns["ok", default: 0] >= 1 && $0.state == "idle"
        }
        let recover = try #require(fixture.snapshot.undo?.recover)
        #expect(recover.copyMadeAt == copy.madeAt / 1000)
        #expect(recover.contacts == 20)
        let kept = try #require(recover.keptAs)
        #expect(kept.hasPrefix(fixture.storePath + ".damaged-"))
        // The damaged store is kept, not deleted, and is still the damaged one.
        #expect(access(kept, F_OK) == 0)
        #expect(!ContactStore.problems(atPath: kept).isEmpty)
        // The store is sound, has its contacts, and the pass brought back what changed in the folder since the copy.
        #expect(ContactStore.problems(atPath: fixture.storePath).isEmpty)
        let store = try ContactStore(readingOnly: fixture.storePath)
        #expect(try store.count() == 20)
        fixture.turn("the changes since the copy back") { _ in
            (try? DamagedStoreFixture.renamedIn(store)) == DamagedStoreFixture.renamed
        }
        #expect(fixture.snapshot.contacts == 20)
        // The damage's attention is gone, and nothing is offered any more.
        #expect(fixture.snapshot.damage == nil)
        #expect(fixture.snapshot.attention == nil)
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Long press: recover confirmed") })
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Store recovered from a safety copy") })
        fixture.turn("the ordinary look") { _ in fixture.daemon.panel.look == PanelState.idle.look }
        // The daemon still holds its lock: `contactbox recover` stays out while it runs.
        #expect(StoreLock(storePath: fixture.storePath, exclusive: true) == nil)
        // And syncs as before.
        let passes = fixture.snapshot.counters.syncRuns["ok", default: 0]
        fixture.daemon.send(.button(.short))
        fixture.turn("a pass after it") { $0.counters.syncRuns["ok", default: 0] > passes }
    }

    @Test("armed, a short press cancels: the store stays as it was, damaged, and nothing is set aside")
    func shortPressCancels() throws {
        let fixture = try DamagedStoreFixture()
        fixture.arm()
        fixture.daemon.send(.button(.short))
        #expect(fixture.snapshot.undo?.phase == .cancelled)
        fixture.turn("the store's look") { _ in fixture.daemon.panel.look == PanelState.attention(.storage).look }
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Button pressed: recover cancelled") })
        #expect(fixture.setAside().isEmpty)
        #expect(fixture.snapshot.damage != nil)
        #expect(!ContactStore.problems(atPath: fixture.storePath).isEmpty)
        #expect(fixture.snapshot.counters.syncRuns.isEmpty)
    }

    @Test("armed, no press before the deadline: it lapses, and a long press after it recovers nothing")
    func deadlinePasses() throws {
        let fixture = try DamagedStoreFixture()
        fixture.arm()
        let late = monotonicMillis() + UndoConfirmation.deadline.components.seconds * 1_000 + 1_000
        fixture.turn("expired", at: late) { $0.undo?.phase == .expired }
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Recover not confirmed at the box in time") })
        fixture.daemon.send(.button(.long))
        fixture.turn("the long press taken", at: late) { $0.counters.buttonPresses == 1 }
        #expect(fixture.snapshot.undo?.phase == .expired)
        #expect(fixture.setAside().isEmpty)
        #expect(fixture.snapshot.damage != nil)
    }

    @Test("no good safety copy: the page is told so, a recover is not armed, and nothing changes")
    func noGoodCopy() throws {
        let fixture = try DamagedStoreFixture(withCopy: false)
        #expect(fixture.snapshot.damage != nil && fixture.snapshot.damage?.copy == nil)
        fixture.daemon.pageRequests.post(.undo(.recover))
        fixture.turn("refused") { snapshot in
            snapshot.events.contains { $0.message.hasPrefix("Recover not armed: no safety copy passes the check") }
        }
        #expect(fixture.snapshot.undo == nil)
        #expect(fixture.setAside().isEmpty)
    }
}

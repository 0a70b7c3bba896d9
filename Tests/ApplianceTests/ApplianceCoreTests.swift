import Config
import FrontPanel
import StatusServer
import SystemSupport
import Testing

@testable import Appliance

/// The daemon's decisions, driven by hand: events in, effects and the look out, on a clock the test moves.
struct CoreDriver {
    var core = ApplianceCore(
        sync: SyncSettings(interval: .seconds(900), fullCheck: .seconds(86_400)), remotes: 1, now: 0)
    var now: Int64 = 0
    static let wallAtZero: Int64 = 1_700_000_000

    /// The effects of `event` at the driver's clock.
    mutating func send(_ event: ApplianceCore.Event) -> [ApplianceCore.Effect] {
        core.handle(event, at: ApplianceCore.Now(monotonic: now, wall: Self.wallAtZero + now / 1000))
    }

    /// Only the passes asked for, of some effects.
    static func passes(_ effects: [ApplianceCore.Effect]) -> [SyncRequest] {
        effects.compactMap { if case .requestPass(let request) = $0 { request } else { nil } }
    }

    static func messages(_ effects: [ApplianceCore.Effect]) -> [String] {
        effects.compactMap { if case .log(_, let message, _) = $0 { message.description } else { nil } }
    }

    var look: PanelState { core.look(at: now) }

    /// Starts the box, asks for the start-up pass, and runs it to `state` `duration` later.
    mutating func startAndRun(to state: ApplianceState, schedule: Scheduler.PassResult = .done, taking duration: Int64)
    {
        _ = send(.started)
        let request = Self.passes(send(.tick))
        #expect(request == [SyncRequest(.startup)])
        runPass(request[0], to: state, schedule: schedule, taking: duration)
    }

    mutating func runPass(
        _ request: SyncRequest, to state: ApplianceState, schedule: Scheduler.PassResult = .done, taking duration: Int64
    ) {
        _ = send(.worker(.passStarted(request)))
        _ = send(.worker(.progress(ApplianceState.SyncActivity(remote: "nas"))))
        now += duration
        _ = send(.worker(.passTook(.milliseconds(duration))))
        _ = send(.worker(.passFinished(SyncPass.Result(state: state, schedule: schedule))))
    }
}

@Suite("The daemon's core: its decisions without threads")
struct ApplianceCoreTests {
    @Test("start-up: idle, the first pass due at once, the sync LED blinking until it has started and 1.5 s more")
    func startUp() {
        var driver = CoreDriver()
        #expect(driver.look == .starting)
        #expect(driver.send(.started).isEmpty)
        #expect(driver.core.state == .idle)
        #expect(CoreDriver.passes(driver.send(.tick)) == [SyncRequest(.startup)])
        // Asked for, not yet started (the worker opens the store): not idle on the LEDs.
        #expect(driver.look == .syncing)
        // Not asked for twice while it waits for the worker.
        driver.now = 5_000
        #expect(driver.send(.tick).isEmpty)
        #expect(driver.look == .syncing)
        _ = driver.send(.worker(.passStarted(SyncRequest(.startup))))
        _ = driver.send(.worker(.passTook(.milliseconds(100))))
        _ = driver.send(.worker(.passFinished(SyncPass.Result(state: .idle, schedule: .done))))
        // A pass of 0.1 s is still seen for 1.5 s, and the loop is woken when it ends.
        #expect(driver.look == .syncing)
        #expect(driver.core.nextWake(after: driver.now) == 6_500)
        driver.now = 6_500
        #expect(driver.look == .idle)
        #expect(driver.core.shown.lastSync == CoreDriver.wallAtZero + 5)
        #expect(driver.core.shown.counters.lastPass == .milliseconds(100))
        // The next pass one interval after this one ended, on the page in unix seconds; the loop wakes before it
        // for the store's first care.
        #expect(driver.core.scheduler.nextPass == 905_000)
        #expect(driver.core.nextWake(after: driver.now) == ApplianceCore.firstCare.wholeMilliseconds)
        let now = ApplianceCore.Now(monotonic: driver.now, wall: CoreDriver.wallAtZero + 6)
        #expect(driver.core.nextSync(at: now) == CoreDriver.wallAtZero + 905)
        driver.now = 905_000
        #expect(CoreDriver.passes(driver.send(.tick)) == [SyncRequest(.interval)])
        #expect(driver.core.nextSync(at: now) == nil)
    }

    @Test("the worker's progress is the state while a pass runs, and the state it ends in stays")
    func progressAndResult() {
        var driver = CoreDriver()
        _ = driver.send(.started)
        _ = driver.send(.tick)
        _ = driver.send(.worker(.passStarted(SyncRequest(.startup))))
        let activity = ApplianceState.SyncActivity(remote: "icloud", phase: "Sending", done: 100, total: 150)
        _ = driver.send(.worker(.progress(activity)))
        #expect(driver.core.state == .syncing(activity))
        #expect(driver.core.statusLine == "Syncing icloud: sending 100 of 150")
        #expect(driver.look == .syncing)
        let login = ApplianceState.needsAttention(.login, reason: "icloud refused the login: 401")
        let effects = driver.send(.worker(.passFinished(SyncPass.Result(state: login, schedule: .done))))
        #expect(CoreDriver.messages(effects) == ["Sync pass finished", "Attention needed"])
        #expect(driver.core.state == login)
        #expect(driver.look == .attention(.login))
        #expect(driver.core.statusLine == "icloud refused the login: 401")
    }

    @Test("each remote's result, the contacts and the restore points reach the page through the core")
    func news() {
        var driver = CoreDriver()
        let before = StatusSnapshot.Remote(name: "nas", kind: "vdir", lastResult: "never")
        _ = driver.send(.worker(.historyLoaded([before])))
        #expect(driver.core.shown.remotes == [before])
        var counts = SyncCounts()
        counts.uploaded = 3
        let synced = StatusSnapshot.Remote(name: "nas", kind: "vdir", lastResult: "ok", lastSync: 1, counts: counts)
        _ = driver.send(.worker(.remoteSynced(synced)))
        _ = driver.send(.worker(.remoteSynced(synced)))
        let cloud = StatusSnapshot.Remote(name: "cloud", kind: "carddav", lastResult: "failed")
        _ = driver.send(.worker(.remoteSynced(cloud)))
        #expect(driver.core.shown.remotes == [synced, cloud])
        #expect(driver.core.shown.counters.syncRuns == ["ok": 2, "failed": 1])
        #expect(driver.core.shown.counters.items.uploaded == 6)
        _ = driver.send(.worker(.contactsCounted(42)))
        #expect(driver.core.shown.contacts == 42)
        let run = StatusSnapshot.Run(
            id: 9, kind: "sync", remote: "nas", startedAt: 1, finishedAt: 2, outcome: "ok", created: 1, updated: 0,
            deleted: 0, remoteCounts: nil, note: nil)
        _ = driver.send(.worker(.restorePoints([run])))
        #expect(driver.core.shown.runs == [run])
        _ = driver.send(.worker(.storeFailed("disk I/O error")))
        #expect(driver.core.state.attentionName == "storage")
        #expect(driver.look == .attention(.storage))
    }

    @Test("a short press syncs now and is counted; the page's sync now does the same")
    func shortPress() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        let effects = driver.send(.button(.short))
        #expect(CoreDriver.passes(effects) == [SyncRequest(.button)])
        #expect(CoreDriver.messages(effects) == ["Button pressed: sync now"])
        #expect(driver.core.shown.counters.buttonPresses == 1)
        #expect(driver.look == .syncing)
        #expect(CoreDriver.passes(driver.send(.page(.syncNow))) == [SyncRequest(.statusPage)])
        #expect(driver.core.shown.counters.buttonPresses == 1)
        // Reaching the long press's 3 s is news for the journal only.
        #expect(CoreDriver.messages(driver.send(.button(.longReached))) == ["Long press: release to confirm"])
        #expect(driver.core.shown.counters.buttonPresses == 1)
    }

    @Test("a long press confirms held deletions, or clears an error and retries")
    func longPress() {
        var driver = CoreDriver()
        let held = ApplianceState.needsAttention(.deletionsHeld, reason: "40 of 40 deletions held at nas")
        driver.startAndRun(to: held, taking: 2_000)
        #expect(driver.look == .attention(.deletionsHeld))
        var effects = driver.send(.button(.long))
        #expect(CoreDriver.passes(effects) == [SyncRequest(.longPress, confirmDeletions: true)])
        #expect(CoreDriver.messages(effects) == ["Long press: deletions confirmed"])
        #expect(driver.core.state == .idle)
        driver.runPass(SyncRequest(.longPress), to: .needsAttention(.unreachable, reason: "nas is gone"), taking: 2_000)
        effects = driver.send(.button(.long))
        #expect(CoreDriver.passes(effects) == [SyncRequest(.longPress)])
        #expect(CoreDriver.messages(effects) == ["Long press: clearing the error and retrying"])
    }

    @Test("the undo: previewed, armed, the waiting look wins, a long press undoes that run and nothing else")
    func undoConfirmed() {
        var driver = CoreDriver()
        driver.startAndRun(to: .needsAttention(.deletionsHeld, reason: "held"), taking: 2_000)
        #expect(driver.send(.page(.undo(.preview(run: 7)))).contains(.previewUndo(run: 7)))
        #expect(driver.core.shown.undo?.phase == .checking)
        // Another preview waits: the one asked for is being worked out.
        _ = driver.send(.page(.undo(.arm(run: 7))))
        #expect(driver.core.shown.undo?.phase == .checking)
        _ = driver.send(.worker(.undoPreviewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 3))))
        #expect(driver.core.shown.undo?.reverted == 3)
        _ = driver.send(.page(.undo(.arm(run: 7))))
        #expect(driver.core.shown.undo?.phase == .armed)
        #expect(driver.core.shown.undo?.deadline == CoreDriver.wallAtZero + 2 + 120)
        #expect(driver.look == .awaitingLongPress)
        #expect(driver.core.statusLine == "Waiting for a long press to undo run 7 (a short press cancels)")
        #expect(driver.core.nextWake(after: driver.now) == 2_000 + 120_000)
        // A second page cannot start another undo meanwhile.
        #expect(!driver.send(.page(.undo(.preview(run: 8)))).contains(.previewUndo(run: 8)))
        let effects = driver.send(.button(.long))
        // The undo, not the held deletions: those wait for a long press of their own.
        #expect(CoreDriver.passes(effects) == [SyncRequest(.undo, undoRun: 7)])
        #expect(driver.core.shown.undo?.phase == .confirmed)
        #expect(driver.look == .attention(.deletionsHeld))
        let done = StatusSnapshot.Undo(run: 7, phase: .done, reverted: 3, undoRun: 11)
        #expect(CoreDriver.messages(driver.send(.worker(.undoFinished(done)))) == ["Undo done"])
        #expect(driver.core.shown.undo == done)
    }

    @Test("a restore from a contact's page: armed with the waiting look, a long press hands it to a pass, logged")
    func restoreConfirmed() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        let restore = PageRestore(uid: "ada", historyID: 12, name: "Ada Lovelace")
        #expect(
            CoreDriver.messages(driver.send(.page(.restore(restore)))) == [
                "Restore armed on a contact's page: hold the button for 3 seconds to confirm"
            ])
        #expect(driver.look == .awaitingLongPress)
        #expect(driver.core.statusLine == "Waiting for a long press to restore a contact (a short press cancels)")
        #expect(
            CoreDriver.messages(driver.send(.page(.restore(restore)))) == [
                "Restore not armed: another change waits for the button or runs"
            ])
        var expected = SyncRequest(.undo)
        expected.restore = restore
        #expect(CoreDriver.passes(driver.send(.button(.long))) == [expected])
        let done = StatusSnapshot.Undo(run: 12, phase: .done, undoRun: 31, restore: "Ada Lovelace")
        #expect(CoreDriver.messages(driver.send(.worker(.undoFinished(done)))) == ["Restore done"])
        #expect(driver.core.shown.undo == done)
    }

    @Test("an armed undo: a short press cancels it and is no sync; without a press it expires at its deadline")
    func undoCancelledOrExpired() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        func arm(_ driver: inout CoreDriver) {
            _ = driver.send(.page(.undo(.preview(run: 7))))
            _ = driver.send(.worker(.undoPreviewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 3))))
            _ = driver.send(.page(.undo(.arm(run: 7))))
            #expect(driver.look == .awaitingLongPress)
        }
        arm(&driver)
        var effects = driver.send(.button(.short))
        #expect(CoreDriver.passes(effects).isEmpty)
        #expect(CoreDriver.messages(effects) == ["Button pressed: undo cancelled"])
        #expect(driver.core.shown.undo?.phase == .cancelled)
        #expect(driver.look == .idle)

        arm(&driver)
        driver.now += 119_999
        #expect(driver.send(.tick).isEmpty)
        driver.now += 1
        effects = driver.send(.tick)
        #expect(CoreDriver.messages(effects) == ["Undo not confirmed at the box in time: cancelled"])
        #expect(driver.core.shown.undo?.phase == .expired)
        #expect(driver.look == .idle)
        // The next long press is the ordinary one.
        #expect(CoreDriver.passes(driver.send(.button(.long))) == [SyncRequest(.longPress)])
    }

    @Test("offline: retried after 30 s, sooner when the network comes back")
    func offline() {
        var driver = CoreDriver()
        driver.startAndRun(to: .offline, schedule: .retryLater, taking: 1_000)
        #expect(driver.look == .offline)
        // Woken when the pass's 1.5 s on the LEDs end (nothing shows then: offline is not idle), then for the retry.
        #expect(driver.core.nextWake(after: driver.now) == 1_500)
        #expect(driver.core.nextWake(after: 1_500) == 31_000)
        driver.now = 10_000
        #expect(CoreDriver.messages(driver.send(.networkBack)) == ["Network is back"])
        driver.now = 12_000
        #expect(CoreDriver.passes(driver.send(.tick)) == [SyncRequest(.networkBack)])
    }

    @Test("waiting for the correct time: no red, and a pass as soon as the clock is set, once")
    func waitingForTime() {
        var driver = CoreDriver()
        let reason = "Waiting for the correct time: 1 conflict with home waits until the box's clock is set"
        driver.startAndRun(to: .waitingForTime(reason), taking: 1_000)
        driver.now = 2_000
        #expect(driver.look == .offline)  // the waiting look: no error LED
        #expect(driver.core.state.attentionName == nil)
        #expect(driver.core.statusLine == reason)
        driver.now = 5_000
        let effects = driver.send(.clockSet)
        #expect(CoreDriver.messages(effects) == ["The clock is set from the network time"])
        #expect(CoreDriver.passes(effects) == [SyncRequest(.clockSet)])
        _ = driver.send(.worker(.passStarted(SyncRequest(.clockSet))))
        _ = driver.send(.worker(.passFinished(SyncPass.Result(state: .idle, schedule: .done))))
        // Set once; a box that was not waiting for it runs no pass when it is set.
        #expect(CoreDriver.passes(driver.send(.clockSet)).isEmpty)
    }

    @Test("a reload takes the new interval and syncs with the new configuration")
    func reload() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 1_000)
        var configuration = Configuration(storePath: "/tmp/none.sqlite", remotes: [])
        configuration.sync.interval = .seconds(60)
        let effects = driver.send(.reloaded(configuration))
        #expect(CoreDriver.passes(effects) == [SyncRequest(.reload)])
        #expect(CoreDriver.messages(effects) == ["Configuration reloaded"])
        _ = driver.send(.worker(.passStarted(SyncRequest(.reload))))
        _ = driver.send(.worker(.passFinished(SyncPass.Result(state: .idle, schedule: .done))))
        #expect(driver.core.scheduler.nextPass == driver.now + 60_000)
    }

    @Test("stopping: dark, and news of the pass still running changes nothing")
    func stopping() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 1_000)
        _ = driver.send(.worker(.passStarted(SyncRequest(.button))))
        _ = driver.send(.stopping)
        _ = driver.send(.worker(.progress(ApplianceState.SyncActivity(remote: "nas"))))
        _ = driver.send(.worker(.passFinished(SyncPass.Result(state: .idle, schedule: .done))))
        #expect(driver.core.state == .stopping)
        #expect(driver.look == .stopped)
    }

    @Test("a worker that cannot start leaves the store's look and says why")
    func workerFailed() {
        var driver = CoreDriver()
        _ = driver.send(.started)
        _ = driver.send(.workerFailed("no thread"))
        #expect(driver.core.state == .needsAttention(.storage, reason: "Cannot start syncing: no thread"))
        #expect(driver.look == .attention(.storage))
    }

    @Test("no address book: the needs-setup look and words, until a reload brings one")
    func needsSetup() {
        var driver = CoreDriver()
        driver.core = ApplianceCore(sync: SyncSettings(), remotes: 0, now: 0)
        _ = driver.send(.started)
        #expect(driver.core.state == .needsSetup)
        #expect(driver.core.statusLine == "Needs setup: no address book yet")
        #expect(driver.core.state.advice?.contains("Add an address book") == true)
        // The start-up pass has nothing to do, and the look comes back after it.
        driver.runPass(SyncRequest(.startup), to: .idle, taking: 2_000)
        #expect(driver.look == .needsSetup)
        #expect(driver.core.state.name == "setup")
        var configuration = Configuration(storePath: "/tmp/none.sqlite", remotes: [])
        configuration.remotes = [RemoteSettings(name: "nas", kind: .vdir(folder: "/tmp/nas", createFolder: false))]
        _ = driver.send(.reloaded(configuration))
        #expect(driver.core.state == .idle)
        configuration.remotes = []
        _ = driver.send(.reloaded(configuration))
        #expect(driver.core.state == .needsSetup)
    }

    @Test("pairing: a browser asks, the look says press, a short press pairs it instead of syncing")
    func pairing() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        let phone = PairingRequest(id: "0a1b2c3d", address: "192.168.1.20")
        #expect(CoreDriver.messages(driver.send(.page(.pair(phone)))).count == 1)
        #expect(driver.look == .pairing)
        #expect(driver.core.statusLine == "Waiting for a short press to pair the browser at 192.168.1.20")
        #expect(driver.core.nextWake(after: driver.now) == 2_000 + 120_000)
        // Another browser asking meanwhile is turned down: the press is for the one the person holds.
        let other = PairingRequest(id: "ffff0000", address: "192.168.1.99")
        #expect(driver.send(.page(.pair(other))).contains(.pairingDecided(id: "ffff0000", approved: false)))
        // The same phone tapping Pair again replaces its request, and its two minutes start again.
        driver.now += 60_000
        let again = PairingRequest(id: "0a1b2c3e", address: "192.168.1.20")
        #expect(!driver.send(.page(.pair(again))).contains(.pairingDecided(id: "0a1b2c3e", approved: false)))
        #expect(driver.core.nextWake(after: driver.now) == driver.now + 120_000)
        // No undo is armed while a browser waits for the button.
        _ = driver.send(.page(.undo(.preview(run: 7))))
        _ = driver.send(.worker(.undoPreviewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 3))))
        _ = driver.send(.page(.undo(.arm(run: 7))))
        #expect(!driver.core.undo.isArmed)
        let effects = driver.send(.button(.short))
        #expect(effects.contains(.pairingDecided(id: "0a1b2c3e", approved: true)))
        #expect(CoreDriver.passes(effects).isEmpty)
        #expect(driver.look == .idle)
        // The next press syncs again.
        #expect(CoreDriver.passes(driver.send(.button(.short))) == [SyncRequest(.button)])
    }

    @Test("pairing: without a press in 2 minutes the request ends unpaired; an armed undo keeps the button")
    func pairingExpires() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        let phone = PairingRequest(id: "0a1b2c3d", address: "192.168.1.20")
        _ = driver.send(.page(.pair(phone)))
        driver.now += 120_000
        let effects = driver.send(.tick)
        #expect(effects.contains(.pairingDecided(id: "0a1b2c3d", approved: false)))
        #expect(CoreDriver.messages(effects) == ["Pairing not confirmed at the box in time"])
        #expect(driver.look == .idle)

        _ = driver.send(.page(.undo(.preview(run: 7))))
        _ = driver.send(.worker(.undoPreviewed(StatusSnapshot.Undo(run: 7, phase: .previewed, reverted: 3))))
        _ = driver.send(.page(.undo(.arm(run: 7))))
        #expect(driver.send(.page(.pair(phone))).contains(.pairingDecided(id: "0a1b2c3d", approved: false)))
        #expect(driver.look == .awaitingLongPress)
    }

    @Test("a 10 s hold forgets every paired browser, whatever else the button would do")
    func hold() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        #expect(CoreDriver.messages(driver.send(.button(.holdReached))).count == 1)
        let effects = driver.send(.button(.hold))
        #expect(effects.contains(.forgetPairings))
        #expect(CoreDriver.passes(effects).isEmpty)
        #expect(driver.core.shown.counters.buttonPresses == 1)
    }

    @Test("settings saved on the page: read the configuration again, as SIGHUP does, with what the store follows")
    func settingsSaved() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 1_000)
        #expect(driver.send(.page(.settingsSaved([.removed("nas")]))).contains(.reload([.removed("nas")])))
    }

    static func cares(_ effects: [ApplianceCore.Effect]) -> Int {
        effects.filter { if case .careForStore = $0 { true } else { false } }.count
    }

    @Test("the store's care: 10 minutes after the start when idle, never during a pass, then once a day")
    func care() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        #expect(Self.cares(driver.send(.tick)) == 0)
        #expect(driver.core.nextWake(after: driver.now) <= ApplianceCore.firstCare.wholeMilliseconds)
        // Due while a pass runs: it waits for the pass's end.
        driver.now = ApplianceCore.firstCare.wholeMilliseconds - 1
        _ = driver.send(.page(.syncNow))
        driver.now += 1
        #expect(Self.cares(driver.send(.tick)) == 0)
        driver.runPass(SyncRequest(.statusPage), to: .idle, taking: 1_000)
        #expect(Self.cares(driver.send(.tick)) == 1)
        #expect(Self.cares(driver.send(.tick)) == 0)
        let copies = [StatusSnapshot.Copy(madeAt: 1_700_000_600, bytes: 7_000_000)]
        _ = driver.send(.worker(.storeChecked(problems: [], copies: copies)))
        #expect(driver.core.shown.copies == copies)
        #expect(driver.core.state == .idle)
        #expect(driver.core.nextCare == driver.now + ApplianceCore.careInterval.wholeMilliseconds)
        // A copy that gave way to a pass is tried again within the hour.
        driver.now = driver.core.nextCare
        // The interval's pass is due too: the pass first, then the care.
        let due = driver.send(.tick)
        #expect(Self.cares(due) == 0)
        #expect(CoreDriver.passes(due).map(\.triggers) == [[.interval]])
        driver.runPass(CoreDriver.passes(due)[0], to: .idle, taking: 1_000)
        #expect(Self.cares(driver.send(.tick)) == 1)
        _ = driver.send(.worker(.copyPostponed))
        #expect(driver.core.nextCare == driver.now + ApplianceCore.careRetry.wholeMilliseconds)
    }

    @Test("a damaged store: the store look, what to do on the page, and no pass until it is recovered")
    func damagedStore() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        let effects = driver.send(
            .worker(.storeChecked(problems: ["Tree 4 page 4: btreeInitPage() returns error code 11"], copies: [])))
        #expect(effects.isEmpty)
        guard case .needsAttention(.storage, let reason) = driver.core.state else {
            Issue.record("not the store's attention: \(driver.core.state)")
            return
        }
        #expect(reason.contains("The store is damaged (SQLite's check: Tree 4 page 4"))
        #expect(reason.contains("contactbox recover"))
        // A pass that was running meanwhile does not take the attention away.
        _ = driver.send(.worker(.passFinished(SyncPass.Result(state: .idle, schedule: .done))))
        #expect(driver.core.state == .needsAttention(.storage, reason: reason))
        driver.now += 5_000
        #expect(driver.look == .attention(.storage))
        // Neither the schedule, nor the button, nor the page syncs it; a long press does not clear it.
        driver.now += 3_600_000
        #expect(CoreDriver.passes(driver.send(.tick)).isEmpty)
        #expect(CoreDriver.passes(driver.send(.button(.short))).isEmpty)
        #expect(CoreDriver.passes(driver.send(.button(.long))).isEmpty)
        #expect(CoreDriver.passes(driver.send(.page(.syncNow))).isEmpty)
        #expect(
            CoreDriver.messages(driver.send(.page(.syncNow))).contains(
                "Not syncing: the store is damaged (contactbox recover)"))
        #expect(driver.look == .attention(.storage))
        // Nor is a copy made of it.
        driver.now += ApplianceCore.careInterval.wholeMilliseconds
        #expect(Self.cares(driver.send(.tick)) == 0)
    }

    @Test("a damaged store: the page offers the good copy, a long press recovers, and the pass after it syncs")
    func recoverFromThePage() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        // Sound: nothing to recover.
        #expect(CoreDriver.messages(driver.send(.page(.undo(.recover)))) == ["Recover not armed: the store is sound"])
        #expect(driver.core.undo.shown == nil)
        let copy = StatusSnapshot.Copy(madeAt: 1_699_000_000, bytes: 8_192)
        _ = driver.send(.worker(.storeChecked(problems: ["Tree 4 page 4"], copies: [copy], goodCopy: copy)))
        #expect(driver.core.shown.damage == StatusSnapshot.Damage(problem: "Tree 4 page 4", copy: copy))
        guard case .needsAttention(.storage, let reason) = driver.core.state else {
            Issue.record("not the store's attention: \(driver.core.state)")
            return
        }
        #expect(reason.contains("on the status page") && reason.contains("contactbox recover"))

        let armed = driver.send(.page(.undo(.recover)))
        #expect(CoreDriver.messages(armed).first?.hasPrefix("Recover armed on the status page") == true)
        #expect(driver.core.undo.shown?.phase == .armed)
        #expect(driver.look == .awaitingLongPress)
        #expect(driver.core.statusLine.hasPrefix("Waiting for a long press to recover the store"))
        // The long press recovers (no pass: the store is still damaged until the worker is done).
        let confirmed = driver.send(.button(.long))
        #expect(confirmed.contains(.recoverStore(from: copy)))
        #expect(CoreDriver.passes(confirmed).isEmpty)
        #expect(driver.core.storeDamaged)
        let done = StatusSnapshot.Undo(
            run: 0, phase: .done,
            recover: StatusSnapshot.Undo.Recover(copyMadeAt: copy.madeAt, contacts: 20, keptAs: "/s.damaged-1"))
        _ = driver.send(.worker(.storeChecked(problems: [], copies: [copy])))
        let finished = driver.send(.worker(.undoFinished(done)))
        #expect(CoreDriver.passes(finished) == [SyncRequest(.recover, fullCheck: true)])
        #expect(CoreDriver.messages(finished).first?.hasPrefix("Store recovered from a safety copy") == true)
        #expect(!driver.core.storeDamaged && driver.core.shown.damage == nil)
        #expect(driver.core.state == .idle)
        #expect(driver.core.shown.undo == done)
        // Sound again: the button and the schedule sync as before.
        driver.runPass(SyncRequest(.recover, fullCheck: true), to: .idle, taking: 1_000)
        #expect(CoreDriver.passes(driver.send(.button(.short))) == [SyncRequest(.button)])
    }

    @Test("a damaged store without a good copy: nothing to arm; a short press or the deadline cancel an armed one")
    func recoverRefusedOrCancelled() {
        var driver = CoreDriver()
        driver.startAndRun(to: .idle, taking: 2_000)
        _ = driver.send(.worker(.storeChecked(problems: ["Tree 4 page 4"], copies: [], goodCopy: nil)))
        #expect(driver.core.shown.damage == StatusSnapshot.Damage(problem: "Tree 4 page 4", copy: nil))
        #expect(
            CoreDriver.messages(driver.send(.page(.undo(.recover))))
                == ["Recover not armed: no safety copy passes the check"])
        #expect(driver.core.undo.shown == nil)

        let copy = StatusSnapshot.Copy(madeAt: 1_699_000_000, bytes: 8_192)
        _ = driver.send(.worker(.storeChecked(problems: ["Tree 4 page 4"], copies: [copy], goodCopy: copy)))
        _ = driver.send(.page(.undo(.recover)))
        let cancelled = driver.send(.button(.short))
        #expect(CoreDriver.messages(cancelled) == ["Button pressed: recover cancelled"])
        #expect(!cancelled.contains(.recoverStore(from: copy)))
        #expect(driver.core.undo.shown?.phase == .cancelled)
        _ = driver.send(.page(.undo(.recover)))
        driver.now += UndoConfirmation.deadline.wholeMilliseconds
        #expect(CoreDriver.messages(driver.send(.tick)).contains("Recover not confirmed at the box in time: cancelled"))
        #expect(driver.core.undo.shown?.phase == .expired)
        #expect(!driver.send(.button(.long)).contains(.recoverStore(from: copy)))
        #expect(driver.core.storeDamaged && driver.look == .attention(.storage))
        // A recover that failed leaves the damage as it was.
        _ = driver.send(.page(.undo(.recover)))
        _ = driver.send(.button(.long))
        let failed = StatusSnapshot.Undo(
            run: 0, phase: .failed, message: "no good copy",
            recover: StatusSnapshot.Undo.Recover(copyMadeAt: copy.madeAt))
        #expect(CoreDriver.passes(driver.send(.worker(.undoFinished(failed)))).isEmpty)
        #expect(driver.core.storeDamaged && driver.core.shown.undo?.phase == .failed)
    }
}

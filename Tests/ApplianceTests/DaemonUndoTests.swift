import Config
import ContactStore
import FrontPanel
import Glibc
import Logging
import StatusServer
import SystemSupport
import TestSupport
import Testing

@testable import Appliance

/// The daemon's main loop with a real store, a folder remote and its worker thread, a `SimulatedPanel` for LEDs
/// and button, and no status server: the page's requests go in where the server puts them (`pageRequests`).
final class DaemonFixture: DrivenDaemon {
    let pass: PassFixture
    let panel: SimulatedPanel
    let daemon: Daemon
    /// The sync run that renamed `changed` contacts in the folder: the one to undo.
    let run: Int64
    static let changed = 5

    init() throws {
        let pass = try PassFixture(contacts: 20)
        #expect(pass.run().state == .idle)
        // A sync that changes some contacts: five renamed in the folder, taken into the store.
        for name in pass.files().sorted().prefix(Self.changed) {
            let path = pass.folder + "/" + name
            let text = try #require(readText(path))
            try writeText(path, text.replacingOccurrences("FN:Person", with: "FN:Renamed person"))
        }
        #expect(pass.run().state == .idle)
        let renaming = try #require(try pass.store.restorePoints().first)
        #expect(renaming.run.kind == .sync)
        #expect(renaming.updated == Self.changed)
        let panel = SimulatedPanel()
        self.pass = pass
        self.panel = panel
        run = renaming.run.id
        daemon = try Daemon.started(pass, panel: panel)
        // The start-up pass (nothing to do), so that what follows starts from idle.
        turn("the start-up pass") { $0.lastSync != nil && $0.state == "idle" }
    }

    deinit {
        _ = daemon.worker.stop(waitingAtMost: .seconds(5))
    }

    func renamedInFolder() -> Int {
        pass.files().filter { (readText(pass.folder + "/" + $0) ?? "").contains("FN:Renamed person") }.count
    }

    func previewAndArm() {
        daemon.pageRequests.post(.undo(.preview(run: run)))
        turn("the preview") { $0.undo?.phase == .previewed }
        #expect(snapshot.undo?.reverted == Self.changed)
        daemon.pageRequests.post(.undo(.arm(run: run)))
        turn("armed") { $0.undo?.phase == .armed }
    }
}

/// A daemon whose main loop a test turns by hand.
protocol DrivenDaemon {
    var daemon: Daemon { get }
}

extension DrivenDaemon {
    var snapshot: StatusSnapshot { daemon.board.snapshot() }

    /// Turns of the main loop, each after a wake-up or 20 ms, until `done` holds of the board (at most 10 s).
    func turn(_ what: String, at time: Int64? = nil, until done: (StatusSnapshot) -> Bool) {
        for _ in 0..<500 {
            daemon.step(at: time ?? monotonicMillis())
            if done(snapshot) { return }
            daemon.wake.wait(atMost: .milliseconds(20))
        }
        Issue.record("not reached: \(what); undo \(String(describing: snapshot.undo)), state \(snapshot.state)")
    }
}

extension Daemon {
    /// A daemon over `pass`'s configuration and store, with `panel` and no status server, its worker started.
    static func started(_ pass: PassFixture, panel: SimulatedPanel) throws -> Daemon {
        let daemon = try Daemon(
            configuration: pass.configuration,
            options: .init(configPath: pass.directory.file("none.toml"), storePath: nil, version: "t", build: "t"),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, openPanel: { _ in (panel, nil) })
        daemon.startWorker()
        return daemon
    }
}

@Suite("The daemon's undo from the page", .timeLimit(.minutes(2)))
struct DaemonUndoTests {
    @Test("preview, arm, the waiting look, a long press: the undo runs and a pass carries it to the folder")
    func armedThenLongPress() throws {
        let fixture = try DaemonFixture()
        #expect(fixture.renamedInFolder() == DaemonFixture.changed)
        #expect(fixture.snapshot.runs.first?.id == fixture.run)
        fixture.previewAndArm()
        // Nothing changed yet: the page alone cannot roll back.
        #expect(fixture.renamedInFolder() == DaemonFixture.changed)
        #expect(fixture.daemon.panel.look == PanelState.awaitingLongPress.look)
        #expect(fixture.snapshot.leds.map(\.pattern) == ["blinking 0.5 Hz", "blinking 0.5 Hz", "blinking 0.5 Hz"])
        #expect(fixture.panel.levels == LEDLevels(power: true, sync: true, error: true))

        fixture.daemon.send(.button(.long))
        fixture.turn("the undo and its pass") { $0.undo?.phase == .done && $0.state == "idle" }
        let undo = try #require(fixture.snapshot.undo)
        #expect(undo.reverted == DaemonFixture.changed)
        #expect(undo.skipped == 0)
        let own = try #require(undo.undoRun)
        // Its own run heads the restore points, so the undo can be undone in turn.
        fixture.turn("the pass after the undo") { _ in fixture.renamedInFolder() == 0 }
        #expect(fixture.snapshot.runs.first?.id == own)
        #expect(fixture.snapshot.runs.first?.kind == "undo")
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Undo done") })
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Long press: undo confirmed") })
        #expect(fixture.daemon.panel.look != PanelState.awaitingLongPress.look)
    }

    @Test("armed, no press before the deadline: cancelled, logged, and nothing changed")
    func deadlinePasses() throws {
        let fixture = try DaemonFixture()
        fixture.previewAndArm()
        let late = monotonicMillis() + UndoConfirmation.deadline.components.seconds * 1_000 + 1_000
        fixture.turn("expired", at: late) { $0.undo?.phase == .expired }
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Undo not confirmed at the box in time") })
        #expect(fixture.daemon.panel.look == PanelState.idle.look)
        // A long press now is the ordinary one: a pass, and no undo.
        let passes = fixture.snapshot.counters.syncRuns["ok", default: 0]
        fixture.daemon.send(.button(.long))
        fixture.turn("the long press's pass") { $0.counters.syncRuns["ok", default: 0] == passes + 1 }
        #expect(fixture.snapshot.undo?.phase == .expired)
        #expect(fixture.renamedInFolder() == DaemonFixture.changed)
    }

    @Test("armed, a short press cancels: no undo, the LEDs back to the state's look")
    func shortPressCancels() throws {
        let fixture = try DaemonFixture()
        fixture.previewAndArm()
        fixture.daemon.send(.button(.short))
        #expect(fixture.snapshot.undo?.phase == .cancelled)
        fixture.turn("the ordinary look") { _ in fixture.daemon.panel.look == PanelState.idle.look }
        #expect(fixture.snapshot.events.contains { $0.message.hasPrefix("Button pressed: undo cancelled") })
        #expect(fixture.renamedInFolder() == DaemonFixture.changed)
        #expect(try fixture.pass.store.restorePoints().first?.run.id == fixture.run)
    }
}

func readText(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func writeText(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "wb") else { throw ApplianceError("cannot write \(path)") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw ApplianceError("cannot write \(path)") }
}

extension String {
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

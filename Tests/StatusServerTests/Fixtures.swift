import Logging
import Synchronization
import SystemSupport
import TestSupport

@testable import StatusServer

/// A remote name as hostile as a configuration file or a server could make it: quotes, a line break, markup.
let hostileName = "Work \"Team\"\n<script>alert(1)</script> & co"

/// A snapshot with something in every field: an idle box with two remotes, one of them failing.
func makeSnapshot(state: String = "idle", remoteName: String = hostileName) -> StatusSnapshot {
    var counters = StatusSnapshot.Counters()
    counters.syncRuns = ["ok": 12, "failed": 1]
    counters.items = SyncCounts(uploaded: 7, downloaded: 30, updated: 4, deleted: 2, conflicts: 1, errors: 3)
    counters.buttonPresses = 5
    counters.lastPass = .milliseconds(2_500)
    return StatusSnapshot(
        state: state, summary: state == "attention" ? "icloud refused the password" : "Idle: 812 contacts in sync",
        attention: state == "attention" ? "login" : nil,
        advice: state == "attention" ? "Check the app password of icloud" : nil,
        leds: [
            .init(name: "power", lit: true, pattern: "steady"), .init(name: "sync", lit: false, pattern: "off"),
            .init(name: "error", lit: true, pattern: "3 flashes"),
        ],
        lastSync: 1_700_000_000, nextSync: 1_700_000_900, startedAt: 1_699_990_000, contacts: 812,
        remotes: [
            .init(
                name: "icloud", kind: "carddav", lastResult: "ok", lastSync: 1_700_000_000,
                counts: SyncCounts(uploaded: 1, downloaded: 2, updated: 3, deleted: 4, conflicts: 5, errors: 0)),
            .init(
                name: remoteName, kind: "vdir", lastResult: "failed", counts: SyncCounts(errors: 2),
                message: "Server said \"no\"\tthen\u{1}<b>bold</b>"),
        ],
        events: [
            .init(time: 1_700_000_000, level: "error", message: "Sync of <i>work</i> failed"),
            .init(time: 1_699_999_000, level: "info", message: "Started"),
        ],
        version: "1.2.3", build: "abc1234", counters: counters)
}

/// Counts calls of `syncNow`, from whichever thread MHD calls it on.
final class SyncRecorder: Sendable {
    private let calls = Mutex(0)

    var count: Int { calls.withLock { $0 } }

    func record() {
        calls.withLock { $0 += 1 }
    }
}

/// What the server handed on to the daemon (undo steps, pairing requests), from whichever thread MHD calls on.
final class Recorder<Item: Sendable>: Sendable {
    private let calls = Mutex<[Item]>([])

    var requests: [Item] { calls.withLock { $0 } }

    func record(_ item: Item) {
        calls.withLock { $0.append(item) }
    }
}

typealias UndoRecorder = Recorder<UndoRequest>
typealias PairingRecorder = Recorder<PairingRequest>

/// A snapshot a test changes while the server runs (the daemon's board, in small).
final class SnapshotBox: Sendable {
    private let stored: Mutex<StatusSnapshot>

    init(_ snapshot: StatusSnapshot) {
        stored = Mutex(snapshot)
    }

    var current: StatusSnapshot {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}

/// Everything logged, for checking what is (and is not) in the log.
final class LogRecords: Sendable {
    private let stored = Mutex<[String]>([])

    var lines: [String] { stored.withLock { $0 } }

    func append(_ line: String) {
        stored.withLock { $0.append(line) }
    }
}

struct RecordingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        records.append("\(event.level) \(event.message) \(fields)")
    }
}

/// A monotonic clock that moves only when a test says so.
final class ManualClock: Sendable {
    private let millis = Mutex<Int64>(1_000_000)

    var now: Int64 { millis.withLock { $0 } }

    func advance(_ step: Duration) {
        millis.withLock { $0 += step.wholeMilliseconds }
    }
}

/// A server on 127.0.0.1 and a free port, serving `snapshot`. The machine's own names and addresses are
/// `systemHosts` (by default the loopback addresses and the host name "box").
func makeServer(
    snapshot: StatusSnapshot = makeSnapshot(), password: String? = nil, allowedHosts: [String] = [],
    recorder: SyncRecorder = SyncRecorder(), records: LogRecords = LogRecords(), clock: ManualClock = ManualClock(),
    systemHosts: @escaping @Sendable () -> Set<String> = { ["127.0.0.1", "::1", "box", "box.local"] },
    undo: UndoRecorder = UndoRecorder(), live: SnapshotBox? = nil,
    pairings: PairedBrowsers = PairedBrowsers(folder: nil),
    pair: @escaping @Sendable (PairingRequest) -> Void = { _ in }
) throws -> StatusServer {
    var logger = Logger(label: "StatusServerTests") { _ in RecordingLogHandler(records: records) }
    logger.logLevel = .debug
    return try StatusServer(
        settings: StatusServer.Settings(host: "127.0.0.1", port: 0, password: password, allowedHosts: allowedHosts),
        clock: { clock.now }, systemHosts: systemHosts, snapshot: { live?.current ?? snapshot },
        syncNow: { recorder.record() }, undo: { undo.record($0) }, pairings: pairings, pair: pair, logger: logger)
}

/// Pairs a browser as the button would (the test plays the main loop): the headers its changes then carry, the
/// cookie and the page's token, from the page's own origin.
func pairedHeaders(_ pairings: PairedBrowsers, port: UInt16) -> [(String, String)] {
    guard let (secret, request) = pairings.begin(address: "127.0.0.1") else { return [] }
    pairings.decide(id: request.id, approved: true)
    return [
        ("Cookie", "contactbox_pairing=\(secret.text)"), ("X-ContactBox-Token", secret.token),
        ("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin"),
    ]
}

/// `GET path` on `server`.
func get(_ server: StatusServer, _ path: String, headers: [(String, String)] = []) throws -> HTTPTestResponse {
    try HTTPTestClient.request(port: server.port, path: path, headers: headers)
}

import FrontPanel
import StatusServer
import Synchronization
import SystemSupport

/// What the daemon's threads share about its state, under one lock. Each part has one writer, so no thread undoes
/// another's news:
/// - the main loop: `state` (the only writer of `ApplianceState`: the worker's progress reaches it as events),
///   `undo` (the worker's previews and results reach it as events too), `leds`, `look`, `nextSync` and
///   `counters.buttonPresses`;
/// - the sync worker (`SyncPass`): `remotes`, `contacts`, `runs`, `lastSync` and the other counters;
/// - any thread, through the log (`StatusBoardLogHandler`): `events`.
///
/// The status server's thread only reads, a consistent `snapshot()` at a time.
public final class StatusBoard: Sendable {
    public struct Contents: Sendable {
        public var state: ApplianceState = .starting
        public var remotes: [StatusSnapshot.Remote] = []
        public var contacts = 0
        /// Unix seconds.
        public var lastSync: Int64?
        public var nextSync: Int64?
        public var leds = LEDLevels.allOff
        public var look = PanelState.starting.look
        public var counters = StatusSnapshot.Counters()
        /// Oldest first; at most `eventLimit`.
        public var events: [StatusSnapshot.Event] = []
        /// The restore points, newest first, at most `StatusSnapshot.runLimit`.
        public var runs: [StatusSnapshot.Run] = []
        /// The undo asked for on the page (`UndoConfirmation.shown`).
        public var undo: StatusSnapshot.Undo?
    }

    public static let eventLimit = 20

    private let contents = Mutex(Contents())
    private let startedAt: Int64
    private let version: String
    private let build: String

    public init(version: String, build: String, startedAt: Int64 = wallClockSeconds()) {
        self.version = version
        self.build = build
        self.startedAt = startedAt
    }

    public func update<T>(_ body: (inout Contents) -> T) -> T {
        contents.withLock { body(&$0) }
    }

    public var state: ApplianceState { contents.withLock { $0.state } }

    /// Adds a line to the status page's event list. The log does it (`StatusBoardLogHandler`): log the line, and
    /// the journal and the page both get it.
    public func record(_ level: String, _ message: String, at time: Int64 = wallClockSeconds()) {
        contents.withLock { contents in
            contents.events.append(StatusSnapshot.Event(time: time, level: level, message: message))
            if contents.events.count > Self.eventLimit { contents.events.removeFirst() }
        }
    }

    public func snapshot() -> StatusSnapshot {
        let contents = contents.withLock { $0 }
        let state = contents.state
        let leds = [
            ("power", contents.leds.power, contents.look.power), ("sync", contents.leds.sync, contents.look.sync),
            ("error", contents.leds.error, contents.look.error),
        ].map { StatusSnapshot.LED(name: $0.0, lit: $0.1, pattern: $0.2.description) }
        return StatusSnapshot(
            state: state.name, summary: state.summary, attention: state.attentionName, advice: state.advice, leds: leds,
            lastSync: contents.lastSync, nextSync: contents.nextSync, startedAt: startedAt,
            contacts: contents.contacts, remotes: contents.remotes, events: contents.events.reversed(),
            version: version, build: build, counters: contents.counters, runs: contents.runs, undo: contents.undo)
    }
}

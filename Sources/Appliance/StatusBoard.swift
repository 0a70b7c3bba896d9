import FrontPanel
import StatusServer
import Synchronization
import SystemSupport

/// What the status server's thread reads of the daemon, under one lock. Two writers, each of its own part:
/// - the main loop publishes the `ApplianceCore`'s view after every turn (`publish`): the state, the remotes, the
///   counts, the restore points, the undo, the LEDs, the next sync. Nothing else writes it: the worker's news
///   reaches the core as events.
/// - any thread, through the log (`StatusBoardLogHandler`), appends to `events`.
///
/// The status server's thread only reads, a consistent `snapshot()` at a time.
public final class StatusBoard: Sendable {
    public struct Contents: Sendable, Equatable {
        public var state: ApplianceState = .starting
        public var remotes: [StatusSnapshot.Remote] = []
        public var contacts = 0
        /// Unix seconds.
        public var lastSync: Int64?
        public var nextSync: Int64?
        public var leds = LEDLevels.allOff
        public var look = PanelState.starting.look
        public var counters = StatusSnapshot.Counters()
        /// The restore points, newest first, at most `StatusSnapshot.runLimit`.
        public var runs: [StatusSnapshot.Run] = []
        /// The undo asked for on the page (`UndoConfirmation.shown`).
        public var undo: StatusSnapshot.Undo?
        /// The store's safety copies, newest first.
        public var copies: [StatusSnapshot.Copy] = []
        /// While the store is damaged: what the check found, and the copy the page offers to recover from.
        public var damage: StatusSnapshot.Damage?
    }

    public static let eventLimit = 20

    private struct Shared {
        var contents = Contents()
        /// Oldest first; at most `eventLimit`.
        var events: [StatusSnapshot.Event] = []
    }

    private let shared = Mutex(Shared())
    private let startedAt: Int64
    private let version: String
    private let build: String

    public init(version: String, build: String, startedAt: Int64 = wallClockSeconds()) {
        self.version = version
        self.build = build
        self.startedAt = startedAt
    }

    /// The main loop's view, whole: what the page reads next.
    public func publish(_ contents: Contents) {
        shared.withLock { $0.contents = contents }
    }

    /// Adds a line to the status page's event list. The log does it (`StatusBoardLogHandler`): log the line, and
    /// the journal and the page both get it.
    public func record(_ level: String, _ message: String, at time: Int64 = wallClockSeconds()) {
        shared.withLock { shared in
            shared.events.append(StatusSnapshot.Event(time: time, level: level, message: message))
            if shared.events.count > Self.eventLimit { shared.events.removeFirst() }
        }
    }

    public func snapshot() -> StatusSnapshot {
        let (contents, events) = shared.withLock { ($0.contents, $0.events) }
        let state = contents.state
        let leds = [
            ("power", contents.leds.power, contents.look.power), ("sync", contents.leds.sync, contents.look.sync),
            ("error", contents.leds.error, contents.look.error),
        ].map { StatusSnapshot.LED(name: $0.0, lit: $0.1, pattern: $0.2.description) }
        return StatusSnapshot(
            state: state.name, summary: state.summary, attention: state.attentionName, advice: state.advice, leds: leds,
            lastSync: contents.lastSync, nextSync: contents.nextSync, startedAt: startedAt,
            contacts: contents.contacts, remotes: contents.remotes, events: events.reversed(),
            version: version, build: build, counters: contents.counters, runs: contents.runs, undo: contents.undo,
            copies: contents.copies, damage: contents.damage)
    }
}

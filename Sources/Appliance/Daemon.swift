import Config
import ContactStore
import FrontPanel
import Glibc
import Logging
import StatusServer
import SystemSupport

/// `contactbox run`: the appliance. One main loop owns the front panel, the scheduler, the network watch, signals
/// and systemd; the sync worker and the status server run on threads of their own and meet it in the
/// `StatusBoard`. The loop sleeps in poll(2) until a descriptor wakes it or the next LED change, scheduled pass or
/// watchdog ping is due: an idle appliance wakes only for its watchdog.
public final class Daemon {
    public struct Options: Sendable {
        public var configPath: String
        /// Overrides the configuration's store (`--db`).
        public var storePath: String?
        public var version: String
        public var build: String

        public init(configPath: String, storePath: String?, version: String, build: String) {
            self.configPath = configPath
            self.storePath = storePath
            self.version = version
            self.build = build
        }
    }

    /// SIGTERM to exit within 5 s: the current chunk gets this long to commit, which leaves the rest of the
    /// shutdown (the status server, the GPIO lines) a second or more on a slow, busy core. A chunk that has not
    /// committed by then is rolled back and done again by the next start.
    static let stopGrace = Duration.seconds(3)

    let options: Options
    let logger: Logger
    var configuration: Configuration
    let board: StatusBoard
    let signals: SignalWatch
    let wake: WakeUp
    let worker: SyncWorker
    let panel: PanelDriver
    let notifier = SystemdNotifier()
    let network = NetworkWatch()
    var scheduler: Scheduler
    /// The undo asked for on the status page, until the button confirms or cancels it (`UndoConfirmation`).
    var undo = UndoConfirmation()
    let pageRequests: PageRequests
    var server: StatusServer?
    var nextWatchdog: Int64 = 0
    var lastStatusLine = ""
    var stopRequested = false
    /// A pass that ends in a blink would go unseen: after a press the sync LED blinks at least this long.
    static let minimumSyncDisplay = Duration.milliseconds(1_500)
    var showSyncingUntil: Int64 = 0
    /// A pass the main loop asked for has not started yet: the worker may take a while to open the store (or to
    /// finish the pass before), and the LEDs must not show idle meanwhile.
    var passAwaited = false

    /// Sets up every service; the LEDs show "starting" before this returns. Throws only when the daemon cannot
    /// run at all (no eventfd, no signalfd).
    public convenience init(configuration: Configuration, options: Options, logger: Logger) throws(ApplianceError) {
        try self.init(configuration: configuration, options: options, logger: logger, openPanel: Self.openPanel)
    }

    /// `openPanel` opens the configured panel; the tests hand in a `SimulatedPanel`.
    init(
        configuration: Configuration, options: Options, logger: Logger,
        openPanel: (PanelSettings) -> (hardware: PanelHardware?, problem: String?)
    ) throws(ApplianceError) {
        self.configuration = configuration
        self.options = options
        signals = try SignalWatch()  // first: the threads started below inherit its signal mask
        board = StatusBoard(version: options.version, build: options.build)
        self.logger = logger.feeding(board)
        let opened = openPanel(configuration.panel)
        panel = PanelDriver(hardware: opened.hardware)
        let now = monotonicMillis()
        panel.show(.starting, at: now)
        self.logger.info(
            "Front panel showing",
            metadata: [
                "panel.board": "\(configuration.panel.board)",
                "panel.first_led_ms": "\(timeSinceProcessStart().map { String($0.wholeMilliseconds) } ?? "?")",
            ])
        if let problem = opened.problem {
            self.logger.error("Front panel unavailable", metadata: ["panel.error": "\(problem)"])
        }
        wake = try WakeUp()
        pageRequests = PageRequests(mainLoop: wake)
        worker = try SyncWorker(configuration: configuration, mainLoop: wake)
        scheduler = Scheduler(
            interval: configuration.sync.interval, fullCheck: configuration.sync.fullCheck, now: now)
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        startWorker()
        startStatusServer()
        board.update { $0.state = .idle }
        notifier.ready(status: "Started")
        logger.notice(
            "ContactBox started",
            metadata: ["remotes": "\(configuration.remotes.count)", "version": "\(options.version)"])
        while !stopRequested {
            let now = monotonicMillis()
            step(at: now)
            waitForEvents(timeout: timeout(at: now))
        }
        return shutDown()
    }

    // MARK: One turn of the loop

    /// Everything due at `now`: scheduled passes, the worker's news, the LEDs, the status line, the watchdog.
    func step(at now: Int64) {
        for event in worker.takeEvents() { handle(event, at: now) }
        for request in pageRequests.take() { handle(request, at: now) }
        if undo.expire(at: now) {
            logger.notice(
                "Undo not confirmed at the box in time: cancelled",
                metadata: [
                    "undo.run": "\(undo.shown?.run ?? 0)",
                    "undo.waited": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s",
                ])
            publishUndo()
        }
        if let request = scheduler.due(at: now) {
            // Not due again while the worker picks it up (its own passStarted event comes later).
            scheduler.passStarted(fullCheck: request.fullCheck, at: now)
            requestPass(request)
        }
        let state = board.state
        // An armed undo asks for the button whatever else goes on: its look wins until it is answered or expires.
        let look: PanelState =
            undo.isArmed
            ? .awaitingLongPress : state == .idle && (now < showSyncingUntil || passAwaited) ? .syncing : state.panel
        panel.show(look, at: now)
        let nextSync =
            scheduler.nextPass == .max ? nil : wallClockSeconds() + (scheduler.nextPass - now + 999) / 1000
        board.update {
            $0.leds = panel.levels
            $0.look = panel.look
            $0.nextSync = nextSync
        }
        let summary =
            undo.isArmed
            ? "Waiting for a long press to undo run \(undo.shown?.run ?? 0) (a short press cancels)" : state.summary
        panel.hardware?.showSummary(summary)
        if summary != lastStatusLine {
            lastStatusLine = summary
            notifier.status(summary)
        }
        if let interval = notifier.watchdogInterval, now >= nextWatchdog {
            notifier.watchdog()
            nextWatchdog = now + interval.wholeMilliseconds
        }
    }

    private func handle(_ event: SyncWorker.Event, at now: Int64) {
        switch event {
        case .passStarted(let request):
            passAwaited = false
            scheduler.passStarted(fullCheck: request.fullCheck, at: now)
            showSyncingUntil = now + Self.minimumSyncDisplay.wholeMilliseconds
            logger.info("Sync pass started", metadata: ["sync.reasons": "\(request.reasons)"])
        case .progress(let activity):
            if !worker.isStopping { board.update { $0.state = .syncing(activity) } }
        case .passFinished(let result):
            scheduler.passFinished(result.schedule, at: now)
            if !worker.isStopping { board.update { $0.state = result.state } }
            logger.info("Sync pass finished", metadata: ["appliance.state": "\(result.state.name)"])
            if case .needsAttention(_, let reason) = result.state {
                logger.warning("Attention needed", metadata: ["appliance.reason": "\(reason)"])
            }
        case .storeFailed(let message):
            // The worker logged it (the journal and the page).
            board.update {
                $0.state = .needsAttention(.storage, reason: "The contact store cannot be opened: \(message)")
            }
        case .undoPreviewed(let result):
            undo.previewed(result)
            publishUndo()
            if result.phase == .failed {
                logger.warning(
                    "Undo not possible",
                    metadata: ["undo.run": "\(result.run)", "undo.error": "\(result.message ?? "")"])
            }
        case .undoFinished(let result):
            undo.finished(result)
            publishUndo()
            logUndoFinished(result)
        }
    }

    /// The undo's result, in the journal and the page's events: counts only, never names (the events are shown
    /// without the password).
    private func logUndoFinished(_ result: StatusSnapshot.Undo) {
        guard result.phase == .done else {
            logger.error(
                "Undo failed", metadata: ["undo.run": "\(result.run)", "undo.error": "\(result.message ?? "")"])
            return
        }
        let metadata: Logger.Metadata = [
            "undo.run": "\(result.run)", "undo.own_run": "\(result.undoRun.map { "\($0)" } ?? "none")",
            "undo.counts": .string(
                "\(result.revived) brought back, \(result.reverted) put back, \(result.deleted) deleted, "
                    + "\(result.skipped) skipped"),
        ]
        if result.skipped > 0 {
            logger.warning("Undo done; contacts changed since the run were left alone", metadata: metadata)
        } else {
            logger.notice("Undo done", metadata: metadata)
        }
    }

    /// An undo step from the status page (the server's thread posted it to `pageRequests`).
    func handle(_ request: UndoRequest, at now: Int64) {
        switch request {
        case .preview(let run):
            guard undo.preview(run: run) else {
                logger.notice("Undo preview refused: another undo waits for the button or runs")
                return
            }
            logger.info("Status page: undo preview", metadata: ["undo.run": "\(run)"])
            worker.requestUndoPreview(run: run)
        case .arm(let run):
            guard undo.arm(run: run, at: now, wallClock: wallClockSeconds()) else {
                logger.notice("Undo not armed: its preview is not the one shown", metadata: ["undo.run": "\(run)"])
                return
            }
            logger.notice(
                "Undo armed on the status page: hold the button for 3 seconds to confirm",
                metadata: [
                    "undo.run": "\(run)", "undo.deadline": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s",
                ])
        case .cancel:
            guard undo.cancel() else { return }
            logger.notice("Undo cancelled on the status page", metadata: ["undo.run": "\(undo.shown?.run ?? 0)"])
        }
        publishUndo()
    }

    /// The undo as the page shows it: the main loop writes it, as it writes the state.
    private func publishUndo() {
        let shown = undo.shown
        board.update { $0.undo = shown }
    }

    /// The longest poll(2) sleeps, whatever is due.
    static let longestSleep = Duration.seconds(60)

    /// Milliseconds poll(2) may sleep: until the next LED change, pass or watchdog ping.
    private func timeout(at now: Int64) -> Int32 {
        var wakeAt = scheduler.nextPass
        if showSyncingUntil > now { wakeAt = min(wakeAt, showSyncingUntil) }
        if let led = panel.untilNextWake(at: now) { wakeAt = min(wakeAt, now + led.wholeMilliseconds) }
        if let deadline = undo.nextWake { wakeAt = min(wakeAt, deadline) }
        if notifier.watchdogInterval != nil { wakeAt = min(wakeAt, nextWatchdog) }
        return Int32(clamping: max(0, min(wakeAt - now, Self.longestSleep.wholeMilliseconds)))
    }

    private func waitForEvents(timeout: Int32) {
        let button = panel.hardware?.buttonEventDescriptor ?? -1
        var entries = [signals.descriptor, wake.descriptor, button, network.descriptor]
            .map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        if poll(&entries, nfds_t(entries.count), timeout) <= 0 {
            for index in entries.indices { entries[index].revents = 0 }
        }
        let now = monotonicMillis()
        if entries[0].revents != 0 { handleSignals() }
        if entries[1].revents != 0 { wake.drain() }
        // The button is read on its edge events, and on the timer while a press is being timed; a panel whose
        // button is a keyboard (the demo's terminal) hands over its keys then.
        if entries[2].revents != 0 || panel.needsButtonSampling {
            handle(panel.sampleButton(at: now))
            handle(panel.hardware?.takeKeys() ?? [])
        }
        if entries[3].revents != 0, network.update() {
            logger.notice("Network is back")
            scheduler.networkCameBack(at: now)
        }
    }

    // MARK: Button and keys

    private func handle(_ gestures: [ButtonGestures.Gesture]) {
        for gesture in gestures {
            switch gesture {
            case .shortPress: buttonPressed(long: false)
            case .longPress: buttonPressed(long: true)
            case .longPressReached: logger.info("Long press: release to confirm")
            }
        }
    }

    private func handle(_ keys: [PanelKey]) {
        for key in keys {
            switch key {
            case .shortPress: buttonPressed(long: false)
            case .longPress: buttonPressed(long: true)
            case .quit: stopRequested = true
            }
        }
    }

    /// A short press syncs now; a long press confirms held deletions, or clears an error and retries. While an undo
    /// is armed the button answers it and nothing else (`UndoConfirmation`): long confirms, short cancels.
    func buttonPressed(long: Bool, at now: Int64 = monotonicMillis()) {
        board.update { $0.counters.buttonPresses += 1 }
        let run = undo.shown?.run ?? 0
        switch undo.button(long: long, at: now) {
        case .notArmed:
            break
        case .confirmed(let run):
            logger.notice("Long press: undo confirmed", metadata: ["undo.run": "\(run)"])
            requestPass(SyncRequest(.undo, undoRun: run))
            publishUndo()
            return
        case .cancelled:
            logger.notice("Button pressed: undo cancelled", metadata: ["undo.run": "\(run)"])
            publishUndo()
            return
        case .expired:
            logger.notice(
                "Undo not confirmed at the box in time: cancelled",
                metadata: ["undo.run": "\(run)", "undo.waited": "\(UndoConfirmation.deadline.wholeSecondsRoundingUp)s"])
            publishUndo()
            return
        }
        guard long else {
            logger.notice("Button pressed: sync now")
            requestPass(SyncRequest(.button))
            return
        }
        let confirming = board.state.panel == .attention(.deletionsHeld)
        logger.notice(confirming ? "Long press: deletions confirmed" : "Long press: clearing the error and retrying")
        board.update { $0.state = .idle }
        requestPass(SyncRequest(.longPress, confirmDeletions: confirming))
    }

    /// Asks the worker for a pass; the sync LED blinks from now until it has run.
    private func requestPass(_ request: SyncRequest) {
        passAwaited = true
        worker.request(request)
    }

    /// "Sync now" on the status page (its own thread): the worker takes it from there.
    private func startStatusServer() {
        let settings = configuration.status
        var serverSettings = StatusServer.Settings()
        serverSettings.host = settings.host
        serverSettings.port = UInt16(clamping: settings.port)
        serverSettings.allowedHosts = settings.allowedHosts
        do {
            serverSettings.password = try settings.password?.read()
            let worker = worker
            let board = board
            let logger = logger
            let pageRequests = pageRequests
            server = try StatusServer(
                settings: serverSettings, snapshot: { board.snapshot() },
                syncNow: {
                    logger.notice("Status page: sync now")
                    worker.request(SyncRequest(.statusPage))
                }, undo: { pageRequests.post($0) }, logger: logger)
        } catch {
            logger.error("Status page unavailable", metadata: ["status.error": "\(error)"])
        }
    }

    func startWorker() {
        let storePath = options.storePath ?? configuration.storePath
        let board = board
        let logger = logger
        let userAgent = "ContactBox/\(options.version)"
        // A large card's spool files go beside the store: on its disk, which the unit lets the service write.
        SpoolFile.placeBeside(storePath)
        do {
            try worker.start(logger: logger) {
                SyncPass(
                    store: try ContactStore(path: storePath), board: board, logger: logger, userAgent: userAgent,
                    isOnline: { NetworkWatch.hasDefaultRoute() })
            }
        } catch {
            board.update { $0.state = .needsAttention(.storage, reason: "Cannot start syncing: \(error)") }
        }
    }

    // MARK: Signals

    private func handleSignals() {
        for signal in signals.take() {
            switch signal {
            case .stop: stopRequested = true
            case .reload: reload()
            }
        }
    }

    /// SIGHUP: read the configuration again; keep the old one if the new one has a problem.
    func reload() {
        notifier.reloading()
        defer { notifier.ready(status: board.state.summary) }
        // The check `check-config` and the start run: a password file turned into a FIFO or holding a NUL byte is
        // refused here too, not found at the next login.
        let result = Configuration.check(path: options.configPath)
        guard let new = result.configuration, result.errors.isEmpty else {
            var metadata: Logger.Metadata = ["config.error": "\(result.errors.first?.description ?? "unknown")"]
            if result.errors.count > 1 { metadata["config.problems"] = "\(result.errors.count)" }
            logger.error("Configuration not reloaded, the old one stays", metadata: metadata)
            return
        }
        if new.panel != configuration.panel || new.status != configuration.status {
            logger.warning("Panel and status page settings take effect at the next restart")
        }
        configuration = new
        worker.reconfigure(new)
        scheduler.reconfigure(
            interval: new.sync.interval, fullCheck: new.sync.fullCheck, now: monotonicMillis())
        logger.notice("Configuration reloaded", metadata: ["remotes": "\(new.remotes.count)"])
        requestPass(SyncRequest(.reload))
    }

    // MARK: Stopping

    private func shutDown() -> Int32 {
        logger.notice("Stopping")
        notifier.stopping()
        // Dark at once, while the current chunk commits: the box is going away.
        panel.show(.stopped, at: monotonicMillis())
        board.update {
            $0.state = .stopping
            $0.leds = panel.levels
            $0.look = panel.look
        }
        if !worker.stop(waitingAtMost: Self.stopGrace) {
            logger.warning("The sync did not stop in time; the next start resumes it")
        }
        server?.stop()
        server = nil
        panel.hardware?.showSummary("Stopped")
        panel.hardware?.release()
        logger.notice("Stopped")
        return 0
    }
}

@available(*, unavailable) extension Daemon: Sendable {}

import Config
import ContactStore
import FrontPanel
import Glibc
import Logging
import StatusServer
import StoreContacts
import SystemSupport

/// `contactbox run`: the appliance. One main loop owns the front panel, the network watch, signals and systemd,
/// and the `ApplianceCore` that decides what they mean; the sync worker and the status server run on threads of
/// their own. The worker's news and the page's requests reach the loop as events, and the loop alone writes the
/// `StatusBoard` the page reads. The loop sleeps in poll(2) until a descriptor wakes it or the next LED change,
/// scheduled pass or watchdog ping is due: an idle appliance wakes only for its watchdog.
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
    let board: StatusBoard
    let signals: SignalWatch
    let wake: WakeUp
    let worker: SyncWorker
    let panel: PanelDriver
    let notifier = SystemdNotifier()
    let network = NetworkWatch()
    /// The box's name over mDNS (`Daemon+NetworkName.swift`); its thread starts only once a name is set.
    lazy var networkName = NetworkNamePublisher(logger: logger)
    let pageRequests: PageRequests
    /// The browsers paired with the box, kept beside the store.
    let pairings: PairedBrowsers
    /// The JSON API's tokens (`contactbox token`), in the same folder.
    let tokens: APITokens
    /// The settings the page reads and changes, and the address books it adds: both save, then the loop reloads.
    let pageSettings: PageSettings
    let pageSetup: PageSetup
    /// The decisions: state, schedule, undo, LED look. Changed only by `apply`.
    private(set) var core: ApplianceCore
    private(set) var configuration: Configuration
    /// The status page: over HTTP, and over HTTPS too when `[status]` gives a certificate.
    var servers: [StatusServer] = []
    /// The page's password the servers ask for now (nil: none), to tell a new one at a reload.
    var pagePassword: String?
    var nextWatchdog: Int64 = 0
    var lastStatusLine = ""
    var stopRequested = false
    /// Whether the clock is set (`ClockStatus`); until it is, the loop looks every `clockCheck`.
    var clockIsSet: @Sendable () -> Bool = { ClockStatus.current().synchronized }
    private var clockWasSet: Bool?
    static let clockCheck = Duration.seconds(5)
    /// The store's folder lock, held from the worker's start (`StoreLock`).
    var storeLock: StoreLock?
    /// The settings file's problems found at start, reported once the log reaches the page.
    private var settingsProblems: [ConfigurationError] = []

    /// Sets up every service; the LEDs show "starting" before this returns. Throws only when the daemon cannot
    /// run at all (no eventfd, no signalfd). `settingsProblems` (what the check found wrong in the page's settings
    /// file, left out) go to the journal and the page once it runs.
    public convenience init(
        configuration: Configuration, settingsProblems: [ConfigurationError] = [], options: Options, logger: Logger
    ) throws(ApplianceError) {
        try self.init(configuration: configuration, options: options, logger: logger, openPanel: Self.openPanel)
        self.settingsProblems = settingsProblems
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
        core = ApplianceCore(sync: configuration.sync, remotes: configuration.remotes.count, now: now)
        pairings = PairedBrowsers(
            folder: Configuration.stateFolder(ofStore: options.storePath ?? configuration.storePath),
            logger: self.logger)
        tokens = APITokens(
            folder: Configuration.stateFolder(ofStore: options.storePath ?? configuration.storePath),
            logger: self.logger)
        let pageRequests = pageRequests
        pageSettings = PageSettings(configPath: options.configPath) { pageRequests.post(.settingsSaved($0)) }
        pageSetup = PageSetup(
            configPath: options.configPath, logger: self.logger, userAgent: "ContactBox/\(options.version)"
        ) { pageRequests.post(.settingsSaved([])) }
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        send(.started)
        startWorker()
        startStatusServer()
        publishBoxName()
        notifier.ready(status: "Started")
        logger.notice(
            "ContactBox started",
            metadata: ["remotes": "\(configuration.remotes.count)", "version": "\(options.version)"])
        report(settingsProblems)
        while !stopRequested {
            let now = monotonicMillis()
            step(at: now)
            waitForEvents(timeout: timeout(at: now))
        }
        return shutDown()
    }

    // MARK: One turn of the loop

    /// Everything due at `now`: the worker's news, the page's requests, what time makes due, then the LEDs, the
    /// board, the status line and the watchdog.
    func step(at now: Int64) {
        let instant = ApplianceCore.Now(monotonic: now, wall: wallClockSeconds())
        for news in worker.takeEvents() { apply(.worker(news), at: instant) }
        for request in pageRequests.take() { apply(.page(request), at: instant) }
        if clockWasSet != true {
            let isSet = clockIsSet()
            if isSet, clockWasSet == false { apply(.clockSet, at: instant) }
            if !isSet, clockWasSet == nil {
                logger.notice(
                    "The clock is not set yet: waiting for the network time",
                    metadata: ["clock.note": "what the box dates meanwhile is put right when it is set"])
            }
            clockWasSet = isSet
        }
        apply(.tick, at: instant)
        panel.show(core.look(at: now), at: now)
        publish(at: instant)
        let summary = core.statusLine
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

    /// An event from outside a turn (the button, the network, a signal): taken in, and the board shows the result.
    func send(_ event: ApplianceCore.Event, at now: ApplianceCore.Now = .current()) {
        apply(event, at: now)
        publish(at: now)
    }

    /// The one way the core changes: the event goes in, and its effects are carried out.
    private func apply(_ event: ApplianceCore.Event, at now: ApplianceCore.Now) {
        for effect in core.handle(event, at: now) {
            switch effect {
            case .requestPass(let request): worker.request(request)
            case .previewUndo(let run): worker.requestUndoPreview(run: run)
            case .pairingDecided(let id, let approved): pairings.decide(id: id, approved: approved)
            case .forgetPairings: pairings.forgetAll()
            case .reload(let changes): reload(remoteChanges: changes)
            case .careForStore: worker.requestCare()
            case .recoverStore(let copy): worker.requestRecover(offered: copy)
            case .log(let level, let message, let metadata): logger.log(level: level, message, metadata: metadata)
            }
        }
    }

    /// The core's view on the board, with the LEDs as the panel drives them.
    private func publish(at now: ApplianceCore.Now) {
        var contents = core.shown
        contents.nextSync = core.nextSync(at: now)
        contents.leds = panel.levels
        contents.look = panel.look
        board.publish(contents)
    }

    /// The longest poll(2) sleeps, whatever is due.
    static let longestSleep = Duration.seconds(60)

    /// Milliseconds poll(2) may sleep: until the next LED change, pass or watchdog ping.
    private func timeout(at now: Int64) -> Int32 {
        var wakeAt = core.nextWake(after: now)
        if let led = panel.untilNextWake(at: now) { wakeAt = min(wakeAt, now + led.wholeMilliseconds) }
        if notifier.watchdogInterval != nil { wakeAt = min(wakeAt, nextWatchdog) }
        if clockWasSet == false { wakeAt = min(wakeAt, now + Self.clockCheck.wholeMilliseconds) }
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
        if entries[3].revents != 0, network.update() { send(.networkBack) }
        if entries[3].revents != 0 { networkName.networkChanged() }
    }

    // MARK: Button and keys

    private func handle(_ gestures: [ButtonGestures.Gesture]) {
        for gesture in gestures {
            switch gesture {
            case .shortPress: send(.button(.short))
            case .longPress: send(.button(.long))
            case .longPressReached: send(.button(.longReached))
            case .holdReached: send(.button(.holdReached))
            case .hold: send(.button(.hold))
            }
        }
    }

    private func handle(_ keys: [PanelKey]) {
        for key in keys {
            switch key {
            case .shortPress: send(.button(.short))
            case .longPress: send(.button(.long))
            case .quit: stopRequested = true
            }
        }
    }

    /// The status servers on their own threads: they read the board and post "Sync now", the undo's steps and
    /// pairing requests to the main loop. Over HTTPS as well when configured; one that cannot start leaves the other.
    private func startStatusServer() {
        let settings = configuration.status
        var serverSettings = StatusServer.Settings()
        serverSettings.host = settings.host
        serverSettings.port = UInt16(clamping: settings.port)
        serverSettings.allowedHosts = settings.allowedHosts
        do {
            serverSettings.password = try settings.password?.read()
            pagePassword = serverSettings.password
        } catch {
            logger.error("Status page unavailable", metadata: ["status.error": "\(error)"])
            return
        }
        startStatusServer(serverSettings)
        guard let https = settings.https else { return }
        serverSettings.host = https.host
        serverSettings.port = UInt16(clamping: https.port)
        do {
            let (certificate, key) = try https.read()
            serverSettings.tls = StatusServer.Settings.TLS(certificate: certificate, key: key)
        } catch {
            logger.error("Status page over HTTPS unavailable", metadata: ["status.error": "\(error)"])
            return
        }
        startStatusServer(serverSettings)
    }

    private func startStatusServer(_ settings: StatusServer.Settings) {
        let board = board
        let pageRequests = pageRequests
        let (pageSettings, pageSetup) = (pageSettings, pageSetup)
        do {
            servers.append(
                try StatusServer(
                    settings: settings, snapshot: { board.snapshot() }, syncNow: { pageRequests.post(.syncNow) },
                    undo: { pageRequests.post(.undo($0)) }, pairings: pairings,
                    pair: { pageRequests.post(.pair($0)) }, pageSettings: { pageSettings.answer($0) },
                    setup: { pageSetup.answer($0) },
                    // Each server's thread reads the store through a connection of its own.
                    contacts: StoreContacts(path: options.storePath ?? configuration.storePath), tokens: tokens,
                    armRestore: { request in
                        // The main loop decides; this only spares the page a promise it cannot keep.
                        if let undo = board.snapshot().undo, undo.phase == .armed || undo.phase == .confirmed {
                            return false
                        }
                        pageRequests.post(.restore(request))
                        return true
                    }, logger: logger))
        } catch {
            logger.error(
                settings.tls == nil ? "Status page unavailable" : "Status page over HTTPS unavailable",
                metadata: ["status.error": "\(error)"])
        }
    }

    func startWorker() {
        let storePath = options.storePath ?? configuration.storePath
        let logger = logger
        let userAgent = "ContactBox/\(options.version)"
        // A large card's spool files go beside the store: on its disk, which the unit lets the service write.
        SpoolFile.placeBeside(storePath)
        // Held while the daemon runs: `contactbox recover` does not replace a store that is open here.
        guard let lock = StoreLock(storePath: storePath, exclusive: false) else {
            send(
                .workerFailed(
                    "the store \(storePath) is being recovered (contactbox recover): start the box again after it"))
            return
        }
        storeLock = lock
        do {
            try worker.start(logger: logger, storePath: storePath) { report in
                SyncPass(
                    store: try ContactStore(path: storePath), news: report, logger: logger, userAgent: userAgent,
                    isOnline: { NetworkWatch.hasDefaultRoute() })
            }
        } catch {
            send(.workerFailed("\(error)"))
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

    /// SIGHUP, or a save from the page: read the configuration again; keep the old one if the new one has a
    /// problem. `remoteChanges`: what the save did to remotes, which the store follows before the next pass.
    func reload(remoteChanges: [RemoteChange] = []) {
        notifier.reloading()
        defer { notifier.ready(status: core.statusLine) }
        // The check `check-config` and the start run: a password file turned into a FIFO or holding a NUL byte is
        // refused here too, not found at the next login.
        let result = Configuration.checked(path: options.configPath)
        guard let new = result.configuration, result.errors.isEmpty else {
            var metadata: Logger.Metadata = ["config.error": "\(result.errors.first?.description ?? "unknown")"]
            if result.errors.count > 1 { metadata["config.problems"] = "\(result.errors.count)" }
            logger.error("Configuration not reloaded, the old one stays", metadata: metadata)
            return
        }
        var status = new.status
        status.password = configuration.status.password
        if new.panel != configuration.panel || status != configuration.status {
            logger.warning("Panel and status page settings take effect at the next restart")
        }
        changePagePassword(new.status.password)
        configuration = new
        worker.reconfigure(new, changes: remoteChanges)
        publishBoxName()
        report(result.settingsProblems)
        send(.reloaded(new))
    }

    /// The page's password, set or changed on the page (or in /etc; the same file may hold a new one) and read
    /// again: the running servers ask for the new one from the next request. One that cannot be read leaves the
    /// page asking for the old one.
    private func changePagePassword(_ source: SecretSource?) {
        do {
            let password = try source?.read()
            guard password != pagePassword else { return }
            for server in servers { try server.setPassword(password) }
            pagePassword = password
            logger.notice(password == nil ? "Status page password removed" : "Status page password changed")
        } catch {
            logger.error("The status page's new password cannot be used", metadata: ["status.error": "\(error)"])
        }
    }

    /// The page's settings that the box runs without, each with its file, line and why.
    private func report(_ problems: [ConfigurationError]) {
        for problem in problems {
            logger.warning("A setting from the status page is not used", metadata: ["config.error": "\(problem)"])
        }
    }

    // MARK: Stopping

    private func shutDown() -> Int32 {
        logger.notice("Stopping")
        notifier.stopping()
        // Dark at once, while the current chunk commits: the box is going away.
        panel.show(.stopped, at: monotonicMillis())
        send(.stopping)
        if !worker.stop(waitingAtMost: Self.stopGrace) {
            logger.warning("The sync did not stop in time; the next start resumes it")
        }
        for server in servers { server.stop() }
        servers = []
        networkName.stop(waitingAtMost: .milliseconds(1500))
        panel.hardware?.showSummary("Stopped")
        panel.hardware?.release()
        logger.notice("Stopped")
        return 0
    }
}

@available(*, unavailable) extension Daemon: Sendable {}

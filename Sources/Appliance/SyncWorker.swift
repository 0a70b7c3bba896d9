import CMalloc
import Config
import ContactStore
import Logging
import StatusServer
import Synchronization
import SystemSupport

/// Runs sync passes on a thread of its own, one at a time, and tells the main loop what happened as events (it
/// writes nothing the main loop reads). A request that arrives while a pass runs waits, merged
/// with any other that arrives meanwhile, and runs as one follow-up pass: a storm of button presses is one pass.
public final class SyncWorker: Sendable {
    /// What the worker tells the main loop.
    public enum Event: Sendable, Equatable {
        case passStarted(SyncRequest)
        /// Where the running pass is: at the start of each remote, then after each chunk. Only the newest waits in
        /// the mailbox, as only the newest is shown.
        case progress(ApplianceState.SyncActivity)
        case passFinished(SyncPass.Result)
        /// How long the pass took (sent as it ends): the last sync is now.
        case passTook(Duration)
        /// The store's last run of each configured remote, before the first pass.
        case historyLoaded([StatusSnapshot.Remote])
        /// A remote's turn ended: its result and counts.
        case remoteSynced(StatusSnapshot.Remote)
        /// The contacts in the store, after a pass or an undo.
        case contactsCounted(Int)
        /// The restore points, newest first (`StatusSnapshot.runLimit`), read again because the store changed.
        case restorePoints([StatusSnapshot.Run])
        /// The store cannot be opened: nothing can be synced until a person looks.
        case storeFailed(String)
        /// SQLite's quick check of the store (at the start, and with the day's care): the problems it found, none
        /// when the store is sound; the safety copies there are, newest first; and, when it is damaged, the newest
        /// copy that passes the check (what a recover would put in place; nil when none does).
        case storeChecked(problems: [String], copies: [StatusSnapshot.Copy], goodCopy: StatusSnapshot.Copy? = nil)
        /// The day's safety copy gave way to a pass asked for: it is made again later.
        case copyPostponed
        /// The day's safety copy could not be made (a full disk?): the copies there are stay.
        case copyFailed(String)
        /// What undoing a run would change (phase `previewed`), or why it cannot be undone (`failed`).
        case undoPreviewed(StatusSnapshot.Undo)
        /// A confirmed undo, restore or recover was done (`done`, before the pass that carries it to the remotes) or
        /// failed.
        case undoFinished(StatusSnapshot.Undo)
    }

    private let pending = Mutex<SyncRequest?>(nil)
    /// The day's care of the store was asked for (`requestCare`).
    private let carePending = Atomic<Bool>(false)
    /// The run whose undo the page asked to preview; a newer ask replaces it.
    private let pendingPreview = Mutex<Int64?>(nil)
    /// A recover of the damaged store was confirmed (`requestRecover`): the copy the page offered.
    private let pendingRecover = Mutex<StatusSnapshot.Copy?>(nil)
    private let events = Mutex<[Event]>([])
    /// The configuration the next pass uses, and what a reload since the last pass asks of the store first.
    private let settings: Mutex<(configuration: Configuration, changes: [RemoteChange], reloaded: Bool)>
    private let stopping = Atomic<Bool>(false)
    private let wake: WakeUp
    /// The main loop's wake-up, signalled with every event.
    private let mainLoop: WakeUp
    private let thread = Mutex<WorkerThread?>(nil)

    public init(configuration: Configuration, mainLoop: WakeUp) throws(ApplianceError) {
        settings = Mutex((configuration, [], false))
        self.mainLoop = mainLoop
        wake = try WakeUp()
    }

    /// Starts the thread; `makePass` opens the store on it (a failure becomes `.storeFailed`), and gives the pass
    /// the worker's mailbox for its news.
    public func start(
        logger: Logger, storePath: String,
        makePass: @escaping @Sendable (_ report: @escaping (Event) -> Void) throws -> SyncPass
    ) throws(ApplianceError) {
        let thread = try WorkerThread { [self] in
            var pass: SyncPass?
            do {
                let opened = try makePass { [self] in post($0) }
                try opened.loadHistory(settings.withLock { $0.configuration })
                pass = opened
            } catch let error as ContactStoreError where error.code == .damaged {
                // Damage that stops even the opening: what the check would have found.
                logger.error("The store is damaged", metadata: ["store.problem": "\(error.message)"])
                post(
                    .storeChecked(
                        problems: [error.message], copies: SyncPass.copies(of: storePath),
                        goodCopy: SyncPass.goodCopy(of: storePath)))
            } catch {
                logger.error("The contact store cannot be opened", metadata: ["store.error": "\(error)"])
                post(.storeFailed("\(error)"))
                return
            }
            var sound = pass?.checkStore() ?? false
            while !isStopping {
                if sound, let pass {
                    // A recover is for a damaged store only; none is taken over into a later damage.
                    pendingRecover.withLock { $0 = nil }
                    // Until the daemon stops, or the day's care finds the store damaged.
                    loop(pass)
                    sound = false
                    continue
                }
                // A damaged store is left alone (a pass would carry what it reads to the remotes): the core shows
                // it, and a recover (confirmed on the page, or `contactbox recover` with the box stopped) is the way
                // on.
                guard let offered = pendingRecover.withLock({ $0.take() }) else {
                    wake.wait()
                    continue
                }
                // This thread's connection closes before the file is replaced.
                pass = nil
                let recovered = recover(storePath: storePath, offered: offered, logger: logger, makePass: makePass)
                (pass, sound) = (recovered.pass, recovered.sound)
                post(.undoFinished(recovered.result))
            }
        }
        self.thread.withLock { $0 = thread }
    }

    /// Asks for a pass; merged with one already waiting.
    public func request(_ request: SyncRequest) {
        pending.withLock { $0 = $0.map { $0.merged(with: request) } ?? request }
        wake.signal()
    }

    /// Asks for the day's care of the store (`SyncPass.careForStore`), done when no pass waits.
    public func requestCare() {
        carePending.store(true, ordering: .relaxed)
        wake.signal()
    }

    /// Asks for the recover of the damaged store, which the page offered from `copy` and a long press confirmed.
    /// Taken only while the store is damaged (the worker passes no sync then).
    public func requestRecover(offered copy: StatusSnapshot.Copy) {
        pendingRecover.withLock { $0 = copy }
        wake.signal()
    }

    /// Asks for the dry run of undoing `run` (read only, done before the next pass).
    public func requestUndoPreview(run: Int64) {
        pendingPreview.withLock { $0 = run }
        wake.signal()
    }

    /// The configuration the next pass uses (after SIGHUP or a save from the page), and what the store must follow
    /// before it (`changes`): applied together, so that no pass sees the new names with the old states.
    public func reconfigure(_ new: Configuration, changes: [RemoteChange] = []) {
        settings.withLock {
            $0.configuration = new
            $0.changes += changes
            $0.reloaded = true
        }
        wake.signal()
    }

    /// What happened since the last call, oldest first.
    public func takeEvents() -> [Event] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Asks the running pass to stop after its current chunk and waits for the thread, at most `limit`; returns
    /// whether it ended in time.
    public func stop(waitingAtMost limit: Duration) -> Bool {
        stopping.store(true, ordering: .relaxed)
        wake.signal()
        guard let thread = thread.withLock({ $0 }) else { return true }
        return thread.join(waitingAtMost: limit)
    }

    private func loop(_ pass: SyncPass) {
        while !isStopping {
            let (configuration, changes, reloaded) = settings.withLock { settings in
                defer {
                    settings.changes = []
                    settings.reloaded = false
                }
                return settings
            }
            if reloaded {
                // The page shows the remotes of the new configuration, each with its history.
                pass.apply(changes)
                do {
                    try pass.loadHistory(configuration)
                } catch {
                    pass.logger.error("The store's history could not be read", metadata: ["store.error": "\(error)"])
                }
            }
            if let run = pendingPreview.withLock({ $0.take() }) {
                post(.undoPreviewed(pass.previewUndo(run: run)))
                continue
            }
            guard let request = pending.withLock({ $0.take() }) else {
                if carePending.exchange(false, ordering: .relaxed) {
                    let sound = pass.careForStore(shouldStop: { [self] in isStopping || pending.withLock { $0 != nil } }
                    )
                    malloc_trim(0)
                    if !sound { return }
                    continue
                }
                wake.wait()
                continue
            }
            post(.passStarted(request))
            // The undo first, then the pass carries it to every remote.
            if let run = request.undoRun { post(.undoFinished(pass.undo(run: run))) }
            if let restore = request.restore { post(.undoFinished(pass.restore(restore))) }
            let result = pass.run(request, configuration: configuration, shouldStop: { [self] in isStopping })
            // A pass's buffers (listings, cards, HTTP bodies) are free now: give the pages back until the next one.
            malloc_trim(0)
            post(.passFinished(result))
        }
    }

    /// The recover a long press confirmed, on this thread, with no connection of its own open on the store: the
    /// newest good safety copy put in its place (`ContactStore.recover`: the damaged files are moved aside, never
    /// deleted), then the store opened and checked again. The page's connections see the new file and reopen
    /// (`StoreContacts`). The daemon's own shared `StoreLock` is no obstacle: it only keeps `contactbox recover`
    /// out while the daemon runs. Returns the new pass, whether the store is sound, and what the page shows.
    private func recover(
        storePath: String, offered: StatusSnapshot.Copy, logger: Logger,
        makePass: (_ report: @escaping (Event) -> Void) throws -> SyncPass
    ) -> (pass: SyncPass?, sound: Bool, result: StatusSnapshot.Undo) {
        func failed(_ copy: StatusSnapshot.Copy, _ message: String) -> StatusSnapshot.Undo {
            StatusSnapshot.Undo(
                run: 0, phase: .failed, message: message, recover: StatusSnapshot.Undo.Recover(copyMadeAt: copy.madeAt))
        }
        guard let copy = ContactStore.newestGoodCopy(of: storePath) else {
            // The page's offer goes: it has nothing left to offer.
            let problems = ContactStore.problems(atPath: storePath)
            if !problems.isEmpty {
                post(.storeChecked(problems: problems, copies: SyncPass.copies(of: storePath), goodCopy: nil))
            }
            return (nil, false, failed(offered, "no safety copy passes the check any more; nothing changed"))
        }
        let used = SyncPass.snapshotCopy(copy)
        let aside: String
        do {
            aside = try ContactStore.recover(storePath, from: copy, at: wallClockMillis())
        } catch {
            return (nil, false, failed(used, "\(error)"))
        }
        do {
            let pass = try makePass { [self] in post($0) }
            try pass.loadHistory(settings.withLock { $0.configuration })
            let contacts = try pass.store.count()
            guard pass.checkStore() else {
                return (pass, false, failed(used, "the store put back fails the check too; it is kept as it is"))
            }
            let recover = StatusSnapshot.Undo.Recover(copyMadeAt: used.madeAt, contacts: contacts, keptAs: aside)
            return (pass, true, StatusSnapshot.Undo(run: 0, phase: .done, recover: recover))
        } catch {
            logger.error("The recovered store cannot be opened", metadata: ["store.error": "\(error)"])
            return (nil, false, failed(used, "the store put back cannot be opened: \(error)"))
        }
    }

    private func post(_ event: Event) {
        events.withLock { events in
            if case .progress = event, case .progress = events.last {
                events[events.count - 1] = event
            } else {
                events.append(event)
            }
        }
        mainLoop.signal()
    }
}

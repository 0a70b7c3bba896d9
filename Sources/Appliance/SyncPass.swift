import Config
import ContactStore
import FrontPanel
import Logging
import Remotes
import SQLite
import StatusServer
import Sync
import SystemSupport

/// One pass over every configured remote, one after the other, as the sync worker runs it: opens each remote and
/// syncs it. What the page shows of it goes out as news: where the pass is, each remote's result, the contact
/// count, the restore points. The main loop's `ApplianceCore` alone turns them into the appliance's state. Owns the
/// store connection; lives on the worker's thread.
public final class SyncPass {
    let store: ContactStore
    /// The worker's mailbox (a test's list).
    let news: (SyncWorker.Event) -> Void
    let logger: Logger
    let userAgent: String
    /// Whether the machine has a route to the internet; decides between "offline" and "server unreachable".
    let isOnline: @Sendable () -> Bool
    /// The store's change sequence number when the restore points were last read (`refreshRestorePoints`).
    var restorePointsSeq: Int64?
    /// How long each remote's turn may take (`TurnDeadline`); a test makes it short.
    var turnLimit = TurnDeadline.standardLimit
    /// The OAuth remotes' access tokens, in memory across passes: renewed when they expire, not at every pass.
    let tokens = TokenSources()
    /// Whether the file system that holds the store is mounted read-only; a test says so itself.
    var isReadOnly: @Sendable (String) -> Bool = SmallFile.isOnReadOnlyFileSystem
    /// Whether the box's clock is set (`ClockStatus`); a test says so itself.
    var clockIsSet: @Sendable () -> Bool = { ClockStatus.current().synchronized }

    public init(
        store: ContactStore, news: @escaping (SyncWorker.Event) -> Void, logger: Logger, userAgent: String,
        isOnline: @escaping @Sendable () -> Bool
    ) {
        self.store = store
        self.news = news
        self.logger = logger
        self.userAgent = userAgent
        self.isOnline = isOnline
    }

    /// How a pass ended, for the scheduler and the state.
    public struct Result: Sendable, Equatable {
        public var state: ApplianceState
        public var schedule: Scheduler.PassResult
    }

    /// Reports what the store remembers (the last run of each remote, the contact count, the restore points), so
    /// the status page has something to show before the first pass.
    public func loadHistory(_ configuration: Configuration) throws {
        var remotes: [StatusSnapshot.Remote] = []
        for remote in configuration.remotes {
            var status = StatusSnapshot.Remote(name: remote.name, kind: remote.kindName, lastResult: "never")
            if let saved = try store.remote(named: remote.name),
                let run = try store.recentSyncRuns(remoteID: saved.id, limit: 1).first
            {
                status.lastResult = run.outcome.map(Self.resultName) ?? "interrupted"
                status.counts = run.counts
                status.message = run.message
                status.lastSync = run.finishedAt.map { $0 / 1000 }
            }
            remotes.append(status)
        }
        news(.historyLoaded(remotes))
        news(.contactsCounted(try store.count()))
        refreshRestorePoints(force: true)
    }

    /// Syncs every remote. `shouldStop` is asked between chunks; `.progress` says which remote the pass is at and
    /// how far it is (at each remote's start and after each chunk).
    public func run(
        _ request: SyncRequest, configuration: Configuration, shouldStop: @escaping @Sendable () -> Bool
    ) -> Result {
        let started = monotonicMillis()
        // The kernel turns a file system read-only after an I/O error (`errors=remount-ro`): a pass then could
        // send changes out and not record that it did. Nothing is synced until the store can be written again.
        if isReadOnly(SmallFile.folder(of: store.path)) {
            return readOnlyDisk(nil)
        }
        var factory = RemoteFactory(store: store, logger: logger, userAgent: userAgent, tokens: tokens)
        factory.turnLimit = turnLimit
        var worst = Result(state: .idle, schedule: .done)
        // A paused remote keeps its contacts and state, and waits.
        let remotes = configuration.syncedRemotes
        do {
            try PassRounds.run(count: remotes.count, storeSeq: store.currentChangeSeq) { index, _ in
                let remote = remotes[index]
                if shouldStop() { return false }
                news(.progress(ApplianceState.SyncActivity(remote: remote.name)))
                let outcome = sync(
                    remote, configuration.sync, request: request, factory: factory, shouldStop: shouldStop)
                if outcome.state.severity > worst.state.severity { worst = outcome }
                return outcome.state == .idle && !shouldStop()
            }
        } catch let error as SQLiteError where error.isWriteFailure {
            worst = readOnlyDisk(error)
        } catch {
            let reason = "The contact store failed: \(error)"
            worst = Result(state: .needsAttention(.storage, reason: reason), schedule: .done)
        }
        let pruned = pruneHistory(configuration.history, shouldStop: shouldStop)
        refreshRestorePoints(force: pruned > 0)
        if let contacts = try? store.count() { news(.contactsCounted(contacts)) }
        news(.passTook(.milliseconds(monotonicMillis() - started)))
        return worst
    }

    /// The store's disk cannot be written: nothing is synced, and the pass is tried again later. Where the kernel
    /// marks the file system read-only, statvfs says so before the pass. Newer kernels' ext4 with `errors=remount-ro`
    /// does not (Debian 12's 6.1.0-57 among them: Tests/systemd/scenario.sh): the mount stays read-write and its
    /// writes fail, so the pass's first write to the store, made before anything goes out, says it (`error`).
    private func readOnlyDisk(_ error: SQLiteError?) -> Result {
        var metadata: Logger.Metadata = ["store.path": "\(store.path)"]
        if let error { metadata["store.error"] = "\(error)" }
        logger.error("Not syncing: the store's disk is read-only", metadata: metadata)
        let reason =
            "The disk is read-only (the system does that after a write fails: a failing SD card?), so nothing"
            + " is synced. The page and the contacts stay as they are. Restart the box; if this comes back,"
            + " copy the contacts off (Download all contacts) and replace the SD card."
        return Result(state: .needsAttention(.storage, reason: reason), schedule: .retryLater)
    }

    /// Retention after the pass: a chunk of at most 100 rows per transaction, stopping with the daemon. A failure
    /// is logged and left for the next pass: the contacts are safe either way. Returns how many rows went.
    private func pruneHistory(_ settings: HistorySettings, shouldStop: () -> Bool) -> Int {
        do {
            let removed = try store.pruneHistory(
                ContactStore.Retention(maxAge: settings.maxAge, maxVersions: settings.maxVersions),
                shouldStop: shouldStop)
            if removed > 0 { logger.info("History pruned", metadata: ["history.removed": "\(removed)"]) }
            return removed
        } catch {
            logger.warning("History could not be pruned", metadata: ["store.error": "\(error)"])
            return 0
        }
    }

    /// One remote: the state it leaves the appliance in, and when to try again.
    private func sync(
        _ remote: RemoteSettings, _ settings: SyncSettings, request: SyncRequest, factory: RemoteFactory,
        shouldStop: @escaping @Sendable () -> Bool
    ) -> Result {
        var logger = logger
        logger[metadataKey: "remote.name"] = "\(remote.name)"
        let report: SyncReport
        do {
            report = try factory.sync(
                remote, settings, confirmDeletions: request.confirmDeletions, fullCheck: request.fullCheck,
                shouldStop: shouldStop
            ) { [news] reached in
                news(
                    .progress(
                        ApplianceState.SyncActivity(
                            remote: remote.name, phase: reached.phase, done: reached.done, total: reached.total)))
            }
        } catch let error as RemoteError {
            report = .failed(remote.name, error)
        } catch let error as ConfigurationError {
            // A password file that went missing or lost its mode: the login cannot be tried.
            report = .failed(remote.name, RemoteError(.unauthorized, error.description))
        } catch let error as SQLiteError where error.isWriteFailure {
            return readOnlyDisk(error)
        } catch {
            logger.error("The store failed", metadata: ["store.error": "\(error)"])
            let reason = "The contact store failed: \(error)"
            return Result(state: .needsAttention(.storage, reason: reason), schedule: .done)
        }
        record(report, for: remote, logger: logger)
        return classify(report, remote: remote.name)
    }

    /// The remote's result for the page (`remoteSynced`), and in the log (the journal and the page's event list).
    private func record(_ report: SyncReport, for remote: RemoteSettings, logger: Logger) {
        let result = Self.resultName(report.outcome)
        let counts = report.counts
        news(
            .remoteSynced(
                StatusSnapshot.Remote(
                    name: remote.name, kind: remote.kindName, lastResult: result, lastSync: wallClockSeconds(),
                    counts: counts, message: report.message)))
        var metadata: Logger.Metadata = [
            "sync.result": "\(result)",
            "sync.counts": .string(
                "\(counts.uploaded) up, \(counts.downloaded) down, \(counts.updated) updated, "
                    + "\(counts.deleted) deleted, \(counts.errors) errors"),
        ]
        if let message = report.message { metadata["sync.message"] = "\(message)" }
        let clean = report.outcome == .ok && counts.errors == 0
        logger.log(level: clean ? .notice : .warning, Self.headline(report.outcome), metadata: metadata)
        // Each refusal once per version of the card: the server's reason is what a person needs to fix it.
        for line in report.refused { logger.warning("Refused by the server", metadata: ["sync.refused": "\(line)"]) }
        for line in report.damaged {
            logger.warning("Changed by the server as it stored it", metadata: ["sync.damaged": "\(line)"])
        }
        for line in report.notes { logger.notice("Note on a card", metadata: ["sync.note": "\(line)"]) }
    }

    private func classify(_ report: SyncReport, remote: String) -> Result {
        switch report.outcome {
        case .ok where report.waitingForClock > 0:
            let count = report.waitingForClock
            let reason =
                "Waiting for the correct time: \(count) conflict\(count == 1 ? "" : "s") with \(remote) wait\(count == 1 ? "s" : "")"
                + " until the box's clock is set (both versions are kept)"
            return Result(state: .waitingForTime(reason), schedule: .done)
        case .ok, .interrupted:
            return Result(state: .idle, schedule: .done)
        case .deletionsHeld:
            let reason = report.message ?? "Deletions held at \(remote)"
            return Result(state: .needsAttention(.deletionsHeld, reason: reason), schedule: .done)
        case .failed:
            let message = report.message ?? "\(remote) failed"
            switch report.failure?.kind {
            case .unauthorized:
                let reason = "\(remote) refused the login: \(message)"
                return Result(state: .needsAttention(.login, reason: reason), schedule: .done)
            case let kind? where kind.isTemporary && !isOnline():
                return Result(state: .offline, schedule: .retryLater)
            // HTTPError.explainTLS's words for a certificate not valid yet: by a clock not set, it may well be.
            case .unreachable where message.contains("is not valid yet") && !clockIsSet():
                let reason =
                    "Waiting for the correct time: \(remote)'s certificate is not valid yet by the box's clock,"
                    + " which is not set"
                return Result(state: .waitingForTime(reason), schedule: .retryLater)
            case .unavailable, .unreachable, .tooSlow, .notFound, .malformed, .invalidSyncToken, .preconditionFailed,
                .rejected, .notAnAddressBook, nil:
                let reason = "\(remote) could not be synced: \(message)"
                return Result(state: .needsAttention(.unreachable, reason: reason), schedule: .retryLater)
            }
        }
    }

    /// The log line (and page event) for a remote's result.
    static func headline(_ outcome: SyncOutcome) -> Logger.Message {
        switch outcome {
        case .ok: "Remote synced"
        case .failed: "Remote not synced"
        case .deletionsHeld: "Remote synced; deletions held"
        case .interrupted: "Remote sync interrupted"
        }
    }

    static func resultName(_ outcome: SyncOutcome) -> String {
        switch outcome {
        case .ok: "ok"
        case .failed: "failed"
        case .deletionsHeld: "deletions_held"
        case .interrupted: "interrupted"
        }
    }
}

extension RemoteSettings {
    /// `carddav` or `vdir`, as the status page names it.
    var kindName: String {
        switch kind {
        case .carddav: "carddav"
        case .vdir: "vdir"
        }
    }
}

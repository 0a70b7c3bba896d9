import ContactStore
import Logging

/// Keeps the store and remote address books in step, one remote at a time, so that a change made in one reaches
/// the others on the same pass (Docs/architecture.md, "The data path").
public final class SyncEngine {
    let store: ContactStore
    let logger: Logger

    public init(store: ContactStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Syncs `book` with the store; `remote` is the store's row for it, as read just before (its sync token and
    /// watermark say where this run starts). Errors of single items are counted in the report; a failure that
    /// stops the run (the remote unreachable, a wrong password) ends it with outcome `.failed` and the reason in
    /// `message`. Only the store itself failing throws.
    public func sync(
        _ book: AddressBook, remote: Remote, options: SyncOptions, progress: ((SyncProgress) -> Void)? = nil
    ) throws -> SyncReport {
        _ = try store.markUnfinishedSyncRunsInterrupted()  // a run cut off by a kill or power loss
        let journal = options.dryRun ? nil : RunJournal(store: store, remoteID: remote.id)
        var logger = self.logger
        logger[metadataKey: "remote.name"] = "\(book.name)"
        let session = SyncSession(
            store: store, book: book, remote: remote, journal: journal, options: options, logger: logger,
            progress: progress)
        do {
            try session.run()
        } catch let error as RemoteError {
            let error = options.deadline?.replacing(error, remote: book.name) ?? error
            session.report.fail(error)
            logger.warning("Sync stopped", metadata: ["sync.error": "\(error.message)"])
        } catch is SyncStopped {
            session.report.outcome = .interrupted
            session.report.message = "stopped before the end; the next sync resumes"
            logger.notice("Sync interrupted: stopping")
        }
        try journal?.finish(session.report)
        return session.report
    }
}

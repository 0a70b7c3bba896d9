import CMalloc
import Config
import ContactStore
import Sync

extension RemoteFactory {
    /// Syncs one configured remote: opens it, runs the engine with the remote's own settings, and returns what the
    /// run did. The one path that `contactbox sync` and the daemon's pass share, so that they cannot drift apart.
    /// A failure that stops the run is in the report; opening the remote throws (`RemoteError` from discovery,
    /// `ConfigurationError` for an unreadable password file), and so does the store failing. The turn, discovery
    /// included, ends by `turnLimit` (`TurnDeadline`).
    public func sync(
        _ remote: RemoteSettings, _ settings: SyncSettings, confirmDeletions: Bool, dryRun: Bool = false,
        fullCheck: Bool = false, shouldStop: (@Sendable () -> Bool)? = nil,
        progress: ((SyncProgress) -> Void)? = nil
    ) throws -> SyncReport {
        let deadline = TurnDeadline(limit: turnLimit)
        let opened: OpenedRemote
        do {
            opened = try open(remote, deadline: deadline)
        } catch let error as RemoteError {
            throw deadline.replacing(error, remote: remote.name)
        }
        var options = SyncOptions(
            policy: ConflictPolicy(remote.conflictPolicy), maxDeleteShare: settings.maxDeleteShare,
            confirmDeletions: confirmDeletions, dryRun: dryRun)
        options.fullCheck = fullCheck
        options.shouldStop = shouldStop
        options.deadline = deadline
        // The last chunk's cards are free by now: their pages go back before the next chunk's land elsewhere, so
        // that chunks do not pile up in a fragmented heap (Deploy/bench/sync.sh, its 1% job at 50,000).
        options.beforeChunk = { _ = malloc_trim(0) }
        let engine = SyncEngine(store: store, logger: logger)
        return try engine.sync(opened.book, remote: opened.remote, options: options, progress: progress)
    }
}

extension ConflictPolicy {
    /// The configured policy (Config knows nothing of Sync, so it has an enum of its own): a case added to one
    /// fails to compile here until it is mapped.
    init(_ setting: RemoteSettings.ConflictPolicy) {
        switch setting {
        case .newest: self = .newest
        case .local: self = .local
        case .remote: self = .remote
        }
    }
}

import ArgumentParser
import CLISupport
import Config
import ContactStore
import Logging
import Remotes
import Sync
import SystemSupport

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the store with the configured address books, one after the other.",
        discussion: """
            Each remote is synced both ways: changes on either side are copied over, a contact changed on both \
            sides is settled by the remote's conflict policy (the other version is kept in the store's history), \
            and an edit beats a deletion. A run that would delete more than max_delete_share of a remote's \
            contacts, or a remote that suddenly lists none, deletes nothing and exits 10 until confirmed with \
            --confirm-deletions.

            A sync asks each server only for the changes since the last one. --full lists every contact of each \
            remote instead, as a first sync does, and compares the whole: a contact deleted on a server whose \
            change tracking missed it (or that forgot its sync tokens) is then deleted here too. The daemon does \
            this once a day (full_check).

            \(Exit.help("sync"))
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Sync only this remote.", valueName: "name"))
    var remote: String?

    @Flag(help: "Decide and report, but change nothing on either side.")
    var dryRun = false

    @Flag(help: "Carry out deletions held for confirmation by an earlier run.")
    var confirmDeletions = false

    @Flag(help: "List every contact of each remote and compare in full, not only the changes since the last sync.")
    var full = false

    func run() throws {
        let config = store.config
        let configuration = try config.load()
        guard !configuration.remotes.isEmpty else {
            // sysexits(3): EX_CONFIG is also "something was found in an unconfigured state".
            Terminal.error(
                "no address book is set up yet: add one on the status page, or with a [[remote]] block in "
                    + config.path)
            throw Exit.configError
        }
        let named = configuration.remotes.filter { remote == nil || $0.name == remote }
        guard !named.isEmpty else {
            Terminal.error("no remote named \(remote ?? "") in \(config.path)")
            throw ExitCode.validationFailure
        }
        let remotes = named.filter { !$0.paused }
        guard !remotes.isEmpty else {
            Terminal.notice(
                (remote.map { "remote \($0) is paused" } ?? "every remote is paused")
                    + ": nothing to sync (set paused = false, or resume it on the status page)")
            return
        }
        let store = try store.open(configuration: configuration)
        let logger = LogSetup.makeLogger()
        let factory = RemoteFactory(store: store, logger: logger, userAgent: "ContactBox/\(contactboxVersion)")
        var exit = ExitCode.success
        try PassRounds.run(count: remotes.count, storeSeq: store.currentChangeSeq) { index, _ in
            let code = sync(remotes[index], configuration.sync, factory: factory)
            exit = Self.worse(exit, code)
            return code == .success || code == Exit.findings
        }
        if exit != .success { throw exit }
    }

    /// One remote through the path the daemon takes too (`RemoteFactory.sync`): the code its result exits with.
    private func sync(_ remote: RemoteSettings, _ settings: SyncSettings, factory: RemoteFactory) -> ExitCode {
        let started = monotonicMillis()
        var bar = ProgressBar(remote.name, total: 0)
        let report: SyncReport
        do {
            defer { bar.finish() }
            report = try factory.sync(
                remote, settings, confirmDeletions: confirmDeletions, dryRun: dryRun, fullCheck: full,
                progress: { progress in
                    bar.update(label: "\(remote.name): \(progress.phase)", done: progress.done, total: progress.total)
                })
        } catch let error as RemoteError {
            Terminal.error("\(remote.name): \(error.message)")
            return Self.exitCode(for: error)
        } catch let error as ConfigurationError {
            Terminal.error(error.description)
            return Exit.configError
        } catch {
            Terminal.error("\(remote.name): the store failed: \(error)")
            return Exit.ioError
        }
        let elapsed = Duration.milliseconds(monotonicMillis() - started)
        print(Self.summary(report, elapsed: elapsed, dryRun: dryRun))
        for line in report.errors { Terminal.note("  \(line)") }
        for line in report.refused { Terminal.note("  refused: \(line)") }
        for line in report.damaged { Terminal.note("  damaged: \(line)") }
        for line in report.notes { Terminal.note("  \(line)") }
        if report.outcome == .deletionsHeld {
            Terminal.note("  " + Self.deletionsHeldAdvice(report))
        } else if let message = report.message {
            Terminal.note("  \(message)")
        }
        switch report.outcome {
        case .failed: return report.failure.map(Self.exitCode(for:)) ?? Exit.temporaryFailure
        case .deletionsHeld: return Exit.deletionsHeld
        default:
            return report.counts.errors > 0 || !report.refused.isEmpty || !report.damaged.isEmpty
                ? Exit.findings : .success
        }
    }

    static func summary(_ report: SyncReport, elapsed: Duration, dryRun: Bool) -> String {
        let counts = report.counts
        let outcome =
            switch report.outcome {
            case .ok: dryRun ? "would sync" : "synced"
            case .failed: "failed"
            case .deletionsHeld: "deletions held"
            case .interrupted: "interrupted"
            }
        return "\(report.remote): \(outcome): "
            + "store: \(counts.downloaded) downloaded, \(counts.storeUpdated) updated, \(counts.storeDeleted) deleted; "
            + "server: \(counts.uploaded) uploaded, \(counts.serverUpdated) updated, \(counts.serverDeleted) deleted; "
            + "\(counts.conflicts) conflicts, \(counts.errors) errors" + refusals(report)
            + " (\(elapsed.formattedSeconds(decimals: 1)) s)"
    }

    /// Held deletions in one message that says what was held and the two ways to let the deletions go.
    static func deletionsHeldAdvice(_ report: SyncReport) -> String {
        let why = report.message.map { $0 + " " } ?? "Deletions were held; nothing was deleted. "
        return why + "If the deletions are wanted, run `contactbox sync --confirm-deletions`, "
            + "or hold the box's button for 3 seconds (until all LEDs light)."
    }

    /// ", 2 refused by the server (1 still as before)": cards the server will not take, which are no errors.
    static func refusals(_ report: SyncReport) -> String {
        guard !report.refused.isEmpty || report.stillRefused > 0 else { return "" }
        let still = report.stillRefused > 0 ? " (\(report.stillRefused) unchanged since refused)" : ""
        return ", \(report.refused.count + report.stillRefused) refused by the server\(still)"
    }

    static func exitCode(for error: RemoteError) -> ExitCode {
        switch error.kind {
        case .unauthorized: Exit.noPermission
        case .malformed: Exit.protocolError
        case .notFound: Exit.findings
        case .notAnAddressBook: Exit.configError
        case .unreachable: Exit.unavailable
        case .unavailable, .tooSlow, .invalidSyncToken, .preconditionFailed, .rejected: Exit.temporaryFailure
        }
    }

    /// The code that says most: a failure outranks held deletions, which outrank item errors.
    static func worse(_ a: ExitCode, _ b: ExitCode) -> ExitCode {
        let rank: [Int32: Int] = [0: 0, 1: 1, 10: 2, 75: 3, 69: 3, 76: 4, 77: 5, 74: 6, 78: 7]
        return (rank[b.rawValue] ?? 3) > (rank[a.rawValue] ?? 3) ? b : a
    }
}

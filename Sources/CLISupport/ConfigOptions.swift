import ArgumentParser
import Config
import Glibc

/// `--config PATH`, for the subcommands that read the configuration file.
public struct ConfigOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The configuration file (default: $CONTACTBOX_CONFIG, else \(Configuration.installedPath)).",
            valueName: "path"))
    public var config: String?

    public init() {}

    public var path: String { Configuration.path(explicit: config) }

    /// Whether a file was named (`--config` or `$CONTACTBOX_CONFIG`) rather than the installed path assumed.
    public var isNamed: Bool {
        if config != nil { return true }
        guard let env = getenv("CONTACTBOX_CONFIG") else { return false }
        return env.pointee != 0
    }

    /// The configuration with the settings file merged in, as the daemon runs it, without reading password files
    /// (a sync reports a bad one for its remote alone); or every problem in it on stderr and exit 78. The settings
    /// file's problems are warnings: the command goes on without what they spoil, as the daemon does.
    public func load() throws -> Configuration {
        let check = Configuration.checked(path: path, readingSecrets: false)
        let loaded = try configuration((check.configuration, check.errors))
        for problem in check.settingsProblems { Terminal.warning(problem.description) }
        return loaded
    }

    /// The configuration after the one check `check-config` runs too (``Configuration/checked(path:boardsDirectory:readingSecrets:)``:
    /// the values and passwords of both files), or every problem of the administrator's file on stderr and exit 78:
    /// for the daemon, which must not start on what `check-config` refuses. The settings file's problems come back
    /// beside it, for the daemon to report: they never keep it from starting.
    public func check() throws -> (configuration: Configuration, settingsProblems: [ConfigurationError]) {
        let check = Configuration.checked(path: path)
        return (try configuration((check.configuration, check.errors)), check.settingsProblems)
    }

    private func configuration(_ result: (configuration: Configuration?, errors: [ConfigurationError])) throws
        -> Configuration
    {
        guard result.errors.isEmpty, let configuration = result.configuration else {
            for problem in result.errors { Terminal.error(problem.description) }
            Terminal.note("Run `contactbox check-config` after fixing \(path).")
            throw Exit.configError
        }
        return configuration
    }

    /// The store the configuration names, read alone (`Configuration.storePath(path:)`): from the file named by
    /// `--config` or `$CONTACTBOX_CONFIG` (missing, or with a problem in `store`, it is exit 78), else from the
    /// installed file when it exists and is readable; nil when there is no file to read.
    public func storePath() throws -> String? {
        guard isNamed || access(path, R_OK) == 0 else { return nil }
        do {
            return try Configuration.storePath(path: path)
        } catch {
            Terminal.error(error.description)
            Terminal.note("Run `contactbox check-config` after fixing \(path), or name the store with --db.")
            throw Exit.configError
        }
    }
}

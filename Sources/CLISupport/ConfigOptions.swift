import ArgumentParser
import Config

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

    /// The configuration, or every problem in it on stderr and exit 78.
    public func load() throws -> Configuration {
        let result = Configuration.validate(path: path)
        guard result.errors.isEmpty, let configuration = result.configuration else {
            for problem in result.errors { Terminal.error(problem.description) }
            Terminal.note("Run `contactbox check-config` after fixing \(path).")
            throw Exit.configError
        }
        return configuration
    }
}

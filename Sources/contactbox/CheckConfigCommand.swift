import ArgumentParser
import CLISupport
import Config

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the configuration file, its password files and its folders.",
        discussion: """
            Reads the configuration (/etc/contactbox/contactbox.toml, or the path given with --config or the \
            CONTACTBOX_CONFIG environment variable), checks every value, reads each password file or credential \
            (never printing it) and checks that vdir folders exist. Prints a summary of each remote and \
            "configuration OK", or every problem found with its line, and exits 78 (EX_CONFIG). `contactbox run` \
            makes the same check of the values and password files at start (exit 78) and on SIGHUP (the old \
            configuration stays); a missing folder, CA file or board file it reports as it runs.

            \(Exit.help("check-config"))
            """)

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let path = options.path
        // The daemon's check at start and on SIGHUP, and what the box may lack besides.
        let result = Configuration.check(path: path, boardsDirectory: BoardConfiguration.directory())
        let problems = result.errors
        guard problems.isEmpty, let configuration = result.configuration else {
            for problem in problems { Terminal.error(problem.description) }
            Terminal.note("\(problems.count) problem\(problems.count == 1 ? "" : "s") in \(path).")
            throw Exit.configError
        }
        print(Self.summary(of: configuration, path: path))
        print("configuration OK")
    }

    static func summary(of configuration: Configuration, path: String) -> String {
        let sync = configuration.sync
        var lines = [
            "\(Configuration.shown(path)):",
            "  store: \(Configuration.shown(configuration.storePath))",
            "  daemon: syncs every \(Configuration.durationText(sync.interval)) and compares in full every "
                + "\(Configuration.durationText(sync.fullCheck)) (`contactbox sync --full` compares in full now)",
            "  sync: deletions above \(percent(sync.maxDeleteShare)) wait for confirmation",
        ]
        for remote in configuration.remotes {
            lines.append("  remote \"\(remote.name)\":")
            switch remote.kind {
            case .carddav(let url, let username, let password, let auth, let caFile, let caPath, let concurrency):
                lines.append("    carddav \(Configuration.shown(url))")
                lines.append(
                    "    user: \(Configuration.shown(username)), password: \(Configuration.shown(password.description)), "
                        + "auth: \(auth.rawValue)")
                lines.append("    \(concurrency) request\(concurrency == 1 ? "" : "s") at a time")
                if let caFile { lines.append("    CA file: \(Configuration.shown(caFile))") }
                if let caPath { lines.append("    CA folder: \(Configuration.shown(caPath))") }
            case .vdir(let folder, let createFolder):
                lines.append("    vdir \(Configuration.shown(folder))\(createFolder ? " (created when missing)" : "")")
            }
            lines.append("    conflicts: \(remote.conflictPolicy.rawValue) wins")
        }
        return lines.joined(separator: "\n")
    }

    private static func percent(_ share: Double) -> String {
        (share * 100).formatted(decimals: share * 100 == (share * 100).rounded() ? 0 : 1) + "%"
    }
}

import ArgumentParser
import CLISupport
import Config

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the configuration file, the settings file, their password files and folders.",
        discussion: """
            Reads the configuration (/etc/contactbox/contactbox.toml, or the path given with --config or the \
            CONTACTBOX_CONFIG environment variable) and the settings file the status page writes next to the \
            store (settings.toml), checks every value, reads each password file or credential (never printing \
            it) and checks that vdir folders exist. Prints a summary of both files, each remote and setting the \
            page may change with the file and line it comes from ("fixed by the administrator" when the \
            configuration sets it, which wins), and "configuration OK"; or every problem found with its line, \
            and exits 78 (EX_CONFIG). Problems of the settings file alone are listed and exit 1: the box starts \
            without what they spoil. `contactbox run` makes the same check of the values and password files at \
            start (exit 78) and on SIGHUP (the old configuration stays); a missing folder, CA file or board file \
            it reports as it runs.

            \(Exit.help("check-config"))
            """)

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let path = options.path
        // The daemon's check at start and on SIGHUP, and what the box may lack besides.
        let check = Configuration.checked(path: path, boardsDirectory: BoardConfiguration.directory())
        let problems = check.errors
        guard problems.isEmpty, let configuration = check.configuration else {
            for problem in problems { Terminal.error(problem.description) }
            Terminal.note("\(problems.count) problem\(problems.count == 1 ? "" : "s") in \(path).")
            throw Exit.configError
        }
        print(Self.summary(of: configuration, check: check))
        if configuration.remotes.isEmpty {
            Terminal.note(
                "No address book is set up yet: add one on the status page, or with a [[remote]] block in \(path).")
        }
        let settingsProblems = check.settingsProblems
        guard settingsProblems.isEmpty else {
            for problem in settingsProblems { Terminal.error(problem.description) }
            let count = settingsProblems.count
            Terminal.note(
                "\(count) problem\(count == 1 ? "" : "s") in \(check.settingsPath ?? "the settings file"): the box "
                    + "starts without what \(count == 1 ? "it spoils" : "they spoil").")
            throw Exit.findings
        }
        print("configuration OK")
    }

    static func summary(of configuration: Configuration, check: ConfigurationCheck) -> String {
        let sync = configuration.sync
        /// ` (FILE:LINE, fixed by the administrator)` for what the page may change; nothing for a default.
        func from(_ key: SettingKey) -> String {
            let origin = check.origin(of: key)
            return origin.source == .builtIn ? "" : " (\(origin.description))"
        }
        var lines = [
            "\(Configuration.shown(check.path)):",
            "  store: \(Configuration.shown(configuration.storePath))",
            "  settings: \(Configuration.shown(configuration.settingsPath))"
                + (check.household == nil && check.settingsProblems.isEmpty ? " (none yet)" : ""),
            "  daemon: syncs every \(Configuration.durationText(sync.interval))\(from(.syncInterval)) and compares "
                + "in full every \(Configuration.durationText(sync.fullCheck)) (`contactbox sync --full` compares in "
                + "full now)",
            "  sync: deletions above \(percent(sync.maxDeleteShare)) wait for confirmation",
        ]
        if let name = configuration.box.name { lines.append("  box name: \(name)\(from(.boxName))") }
        if let password = configuration.status.password {
            lines.append("  status page: \(Configuration.shown(password.description))\(from(.statusPassword))")
        }
        for remote in configuration.remotes {
            lines.append("  remote \"\(remote.name)\"\(from(.remote(remote.name))):")
            switch remote.kind {
            case .carddav(let card):
                let (url, username, password, auth) = (card.url, card.username, card.password, card.authScheme)
                let (caFile, caPath, concurrency) = (card.caFile, card.caPath, card.concurrency)
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
            if remote.paused { lines.append("    paused: kept, not synced") }
        }
        return lines.joined(separator: "\n")
    }

    private static func percent(_ share: Double) -> String {
        (share * 100).formatted(decimals: share * 100 == (share * 100).rounded() ? 0 : 1) + "%"
    }
}

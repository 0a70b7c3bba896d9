import ArgumentParser
import CLISupport
import Config
import Glibc
import Remotes
import SafeText

/// `contactbox remote add|list|remove`: the address books of the settings file, set up from the command line through
/// the one implementation the status page uses too (`AddressBookSetup`).
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Add, list or remove address books (the settings file the status page writes too).",
        discussion: """
            What `remote add` and `remote remove` change is the settings file next to the store \
            (/var/lib/contactbox/settings.toml) and its passwords in secrets/ there; the administrator's file, \
            /etc/contactbox/contactbox.toml, is only read, and its remotes can be changed only there. The daemon \
            takes the change on `systemctl reload contactbox`.

            \(Exit.help("remote"))
            """,
        subcommands: [RemoteAddCommand.self, RemoteListCommand.self, RemoteRemoveCommand.self])

    /// The configuration as the daemon reads it, the administrator's file's problems as exit 78.
    static func load(_ options: ConfigOptions) throws -> (ConfigurationCheck, Configuration) {
        let check = Configuration.checked(path: options.path, readingSecrets: false)
        guard check.errors.isEmpty, let configuration = check.configuration else {
            for problem in check.errors { Terminal.error(problem.description) }
            Terminal.note("Run `contactbox check-config` after fixing \(options.path).")
            throw Exit.configError
        }
        return (check, configuration)
    }

    static func setup(_ options: ConfigOptions) throws -> (AddressBookSetup, ConfigurationCheck, Configuration) {
        let (check, configuration) = try load(options)
        let setup = AddressBookSetup(
            check: check, configuration: configuration, logger: LogSetup.makeLogger(),
            userAgent: "ContactBox/\(contactboxVersion)")
        return (setup, check, configuration)
    }

    /// The failure in the household's words, and the code it exits with.
    static func fail(_ failure: SetupFailure, what: String? = nil) -> ExitCode {
        // A server's URL, names and messages are text from outside: escaped, so they cannot drive the terminal.
        Terminal.error(printable((what.map { $0 + ": " } ?? "") + failure.description))
        return exitCode(for: failure.kind)
    }

    static func exitCode(for kind: SetupFailure.Kind) -> ExitCode {
        switch kind {
        case .wrongPassword, .forbidden: Exit.noPermission
        case .certificate, .unreachable, .folderNotWritable: Exit.unavailable
        case .tooSlow, .busy, .changedMeanwhile: Exit.temporaryFailure
        case .notCardDAV: Exit.protocolError
        case .notFound, .refused: Exit.configError
        case .invalid: ExitCode.validationFailure
        case .cannotSave: Exit.cannotCreate
        }
    }

    /// What the daemon needs to take a change: a reload (SIGHUP). Not sent from here: the command may run as
    /// another user, on a box whose daemon is elsewhere (a test, the demo), and systemd knows which process it is.
    static let reloadAdvice = "the daemon picks it up after `systemctl reload contactbox`"
}

struct RemoteListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the address books of both files, each with the file and line it comes from.",
        discussion: """
            One line per remote, tab-separated: its name, its kind (carddav or vdir), its URL or folder, whether it \
            is synced or paused, and where it is set: the settings file's line, or the administrator's \
            ("fixed by the administrator"). Remotes of the settings file that the box leaves out are listed as \
            warnings with their lines.

            \(Exit.help("remote"))
            """)

    @OptionGroup var config: ConfigOptions

    func run() throws {
        let (check, configuration) = try RemoteCommand.load(config)
        for problem in check.settingsProblems { Terminal.warning(problem.description) }
        guard !configuration.remotes.isEmpty else {
            Terminal.notice(
                "no address book is set up yet: add one with `contactbox remote add`, or on the status page")
            return
        }
        for remote in configuration.remotes {
            let (kind, place) =
                switch remote.kind {
                case .carddav(let card): ("carddav", card.url)
                case .vdir(let folder, _): ("vdir", folder)
                }
            let origin = check.origin(of: .remote(remote.name))
            print(
                [
                    remote.name, kind, printable(Configuration.shown(place)), remote.paused ? "paused" : "synced",
                    origin.description,
                ].joined(separator: "\t"))
        }
    }
}

struct RemoteRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an address book from the settings file; its contacts stay in the store.",
        discussion: """
            Takes the remote out of the settings file and deletes its password file. Nothing on the server is \
            touched, and its contacts stay in the store with their history. Asks first in a terminal; elsewhere \
            give --yes. A remote of the administrator's file (/etc/contactbox/contactbox.toml) is refused: remove \
            it there.

            \(Exit.help("remote"))
            """)

    @OptionGroup var config: ConfigOptions

    @Argument(help: "The remote's name (as `contactbox remote list` shows it).")
    var name: String

    @Flag(help: "Remove without asking.")
    var yes = false

    static let consequences =
        "its contacts stay in the store with their history, and nothing on the server is touched"

    func run() throws {
        let (setup, _, configuration) = try RemoteCommand.setup(config)
        if !yes {
            guard PasswordInput.standardInputIsTerminal else {
                Terminal.error("removing \(name) needs --yes when not asked in a terminal")
                throw ExitCode.validationFailure
            }
            let answer = PasswordInput.answer(prompt: "Remove \(name)? (\(Self.consequences)) [y/N] ")
            guard let answer, ["y", "yes"].contains(answer.lowercased()) else {
                Terminal.notice("nothing removed")
                return
            }
        }
        // The store `sync` uses: its sync state for the remote goes with it. No store yet: nothing to clear.
        let storePath = StoreOptions(db: nil).explicitPath ?? configuration.storePath
        let store = access(storePath, F_OK) == 0 ? try StoreOptions(db: storePath).open() : nil
        do {
            try setup.remove(name, store: store)
        } catch {
            throw RemoteCommand.fail(error)
        }
        print("removed \(name): \(Self.consequences); the daemon stops syncing it after `systemctl reload contactbox`")
    }
}

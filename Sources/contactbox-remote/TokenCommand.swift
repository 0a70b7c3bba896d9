import ArgumentParser
import CLISupport
import Config
import SafeText
import StatusServer
import SystemSupport

/// `contactbox token create|list|revoke`: the tokens programs use the JSON API with, in the state folder's
/// `api-tokens` (``APITokens``), which the running daemon reads again within a second or two of a change.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make, list or revoke the tokens programs use the box's JSON API with.",
        discussion: """
            A program that reads the household's contacts over HTTP (Home Assistant, a backup script) sends a \
            token with each request, for example:

              curl -H "Authorization: Bearer $TOKEN" http://contactbox.local/api/contacts

            `token create NAME` makes one and prints it on standard output, this once: the box keeps only its \
            SHA-256, so a lost token cannot be shown again (revoke it and make another). A token reads the \
            contacts and their changes; one made with --write may also change and delete contacts (PUT, DELETE). \
            Name each after the program that uses it: `token list` shows the names, what each may do, when each \
            was made and last used (never the token), and `token revoke NAME` ends a token at once, without a \
            restart. A paired browser can make and revoke tokens on the status page too.

            Run as the service's user or as root: the tokens are kept in the store's folder \
            (/var/lib/contactbox/api-tokens), owned by the service, mode 600.

            \(Exit.help("token"))
            """,
        subcommands: [TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self])

    /// The tokens of the store's folder, as the daemon of that store reads them.
    static func tokens(_ store: StoreOptions) throws -> APITokens {
        APITokens(folder: Configuration.stateFolder(ofStore: try store.path()))
    }

    /// The failure in words, and the code it exits with.
    static func fail(_ failure: APITokens.Failure) -> ExitCode {
        Terminal.error(failure.description)
        return switch failure.kind {
        case .badName: ExitCode.validationFailure
        case .nameTaken, .tooMany: Exit.configError
        case .cannotRead, .cannotWrite: Exit.cannotCreate
        }
    }
}

struct TokenCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Make a token and print it, this once (read-only unless --write).",
        discussion: """
            The token alone goes to standard output (`TOKEN=$(contactbox token create backup)`), what it may do to \
            standard error. Keep it where the program reads it: the box cannot show it again.

            \(Exit.help("token"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The token's name: 1 to 32 letters, digits, dots, dashes or underscores, e.g. home-assistant.")
    var name: String

    @Flag(help: "Allow the token to change and delete contacts, not only read them.")
    var write = false

    func run() throws {
        let tokens = try TokenCommand.tokens(store)
        let token: String
        do {
            token = try tokens.create(name: name, write: write)
        } catch {
            throw TokenCommand.fail(error)
        }
        print(token)
        Terminal.notice(
            "made the token \(name), which may "
                + (write ? "read and change the contacts" : "read the contacts (not change them)")
                + "; it is shown this once: `contactbox token revoke \(name)` ends it")
    }
}

struct TokenListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tokens: name, read or write, when made, when last used.",
        discussion: """
            One line per token, tab-separated: its name, `read` or `write`, when it was made and when it was last \
            used (local time; the daemon writes a use down at most every five minutes), or `never`. The tokens \
            themselves are not kept, so they are not shown.

            \(Exit.help("token"))
            """)

    @OptionGroup var store: StoreOptions

    func run() throws {
        let tokens = try TokenCommand.tokens(store)
        if let problem = tokens.readProblem { throw TokenCommand.fail(problem) }
        let list = tokens.list()
        guard !list.isEmpty else {
            Terminal.notice("no token yet: `contactbox token create NAME` makes one")
            return
        }
        for info in list {
            print(
                [
                    info.name, info.scope.rawValue, PointInTime.localText(info.created * 1000),
                    info.lastUsed.map { PointInTime.localText($0 * 1000) } ?? "never",
                ].joined(separator: "\t"))
        }
    }
}

struct TokenRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a token: its program is refused from its next request on.",
        discussion: """
            The running daemon notices within a second or two; no restart is needed.

            \(Exit.help("token"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The token's name (as `contactbox token list` shows it).")
    var name: String

    func run() throws {
        let tokens = try TokenCommand.tokens(store)
        let revoked: Bool
        do {
            revoked = try tokens.revoke(name: name)
        } catch {
            throw TokenCommand.fail(error)
        }
        guard revoked else {
            Terminal.error("no token named \(printableName) (`contactbox token list` shows them)")
            throw Exit.findings
        }
        print("revoked the token \(name): its program is refused from its next request on")
    }

    /// The name as typed, escaped: it may be anything.
    var printableName: String {
        APITokens.isValidName(name) ? name : "\"" + printable(name) + "\""
    }
}

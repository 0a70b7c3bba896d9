import ArgumentParser
import CLISupport
import CardDAV
import Config
import Remotes
import Sync

struct DiscoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List the address books at a CardDAV server or account URL.",
        discussion: """
            Walks /.well-known/carddav, the current user principal and the address-book home set, and prints \
            each address book: its URL (to put in the configuration), its name, whether it supports \
            sync-collection, and the vCard versions it takes. Give the account either as --remote NAME from the \
            configuration, or as URL with --username and --password-file (a file readable only by you: passwords \
            never go on a command line, where other users can see them).

            \(Exit.help("discover"))
            """)

    @Argument(help: "The server or address-book URL (not needed with --remote).")
    var url: String?

    @OptionGroup var config: ConfigOptions

    @Option(help: ArgumentHelp("Use this configured remote's URL and login.", valueName: "name"))
    var remote: String?

    @Option(help: "The user name.")
    var username: String?

    @Option(help: ArgumentHelp("A file holding the password.", valueName: "path"))
    var passwordFile: String?

    @Option(help: "basic (default), digest or automatic.")
    var auth: String = "basic"

    @Option(help: ArgumentHelp("Trust this CA certificate (PEM), as a remote's ca_file.", valueName: "path"))
    var caFile: String?

    @Option(help: ArgumentHelp("Trust the CA certificates in this hashed folder, as ca_path.", valueName: "path"))
    var caPath: String?

    func run() throws {
        let account = try resolveAccount()
        let logger = LogSetup.makeLogger()
        let found: Discovery
        do {
            let http = try RemoteFactory.makeHTTPClient(
                username: account.username, password: account.password, auth: account.auth,
                caFile: account.caFile, caPath: account.caPath, concurrency: 1,
                userAgent: "ContactBox/\(contactboxVersion)", logger: logger)
            found = try CardDAVClient(http: http, logger: logger).explore(account.url)
        } catch let error as CardDAVError {
            Terminal.error(Self.message(for: error))
            throw SyncCommand.exitCode(for: RemoteError(error))
        } catch {
            Terminal.error("\(error)")
            throw Exit.temporaryFailure
        }
        let books = found.books
        switch found.start {
        case .missing(let status):
            // A wrong URL, whatever the server holds elsewhere: the books found from its root are shown to help.
            Terminal.error(
                "nothing at \(account.url) (\(status))"
                    + (books.isEmpty ? "" : "; the server's address books follow"))
            Self.print(books)
            throw Exit.configError
        case .calendar, .notDAV:
            guard !books.isEmpty else {
                Terminal.error("no address book found at \(account.url): \(found.startText)")
                throw Exit.configError
            }
            Terminal.warning(
                "\(account.url) is not an address book: \(found.startText); the ones found from there follow")
        case .addressBook, .collection, .resource:
            guard !books.isEmpty else {
                Terminal.error("no address book found at \(account.url): the account has none")
                throw Exit.findings
            }
        }
        Self.print(books)
    }

    /// One line per book: its URL (to configure), its name, and what it supports.
    private static func print(_ books: [AddressBookInfo]) {
        for book in books {
            let features =
                [book.supportsSyncCollection ? "sync-collection" : "listing only"]
                + ["vCard " + book.supportedVersions.joined(separator: ", ")]
            Swift.print("\(book.url)\t\(book.displayName ?? "(no name)")\t\(features.joined(separator: "; "))")
        }
    }

    /// A refusal in words that tell a login (401) from an account the user may not see (403).
    static func message(for error: CardDAVError) -> String {
        guard error.kind == .unauthorized else { return error.message }
        if error.responseStatus == 403 {
            return "the server refused access to that account (403): the user name may not own it (\(error.message))"
        }
        return "the server refused the login (\(error.responseStatus ?? 401)): check the user name and the password "
            + "(\(error.message))"
    }

    /// The account to discover; a remote's ca_file and ca_path unless given on the command line.
    private func resolveAccount() throws -> (
        url: String, username: String, password: String, auth: RemoteSettings.AuthScheme, caFile: String?,
        caPath: String?
    ) {
        if let remote {
            let configuration = try config.load()
            guard let found = configuration.remotes.first(where: { $0.name == remote }),
                case .carddav(let card) = found.kind
            else {
                Terminal.error("no CardDAV remote named \(remote) in \(config.path)")
                throw ExitCode.validationFailure
            }
            let given = caFile != nil || caPath != nil
            return (
                self.url ?? card.url, card.username, try readSecret(card.password), card.authScheme,
                given ? caFile : card.caFile, given ? caPath : card.caPath
            )
        }
        guard let url, let username, let passwordFile,
            let auth = RemoteSettings.AuthScheme(rawValue: auth)
        else {
            throw ValidationError("give a URL with --username and --password-file, or --remote NAME")
        }
        return (url, username, try readSecret(.file(passwordFile)), auth, caFile, caPath)
    }

    private func readSecret(_ source: SecretSource) throws -> String {
        do {
            return try source.read()
        } catch {
            Terminal.error(error.description)
            throw Exit.configError
        }
    }
}

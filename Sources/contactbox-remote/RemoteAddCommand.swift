import ArgumentParser
import CLISupport
import CardDAV
import Config
import Glibc
import OAuth
import Remotes
import SafeText

struct RemoteAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Find the address books of an account, test the login and add them.",
        discussion: """
            Runs discovery from the provider's address (iCloud, Google, Fastmail) or the one given (Nextcloud: \
            the server's address; carddav: any server, account or book URL; folder: a path on the box), lists the \
            address books found, and adds those chosen: all with --all, the ones named with --book URL, or, in a \
            terminal, those typed at the question. Each is tested first (a login and one listing; a folder must \
            exist and be writable by the service); a failure says why and saves nothing. Each book becomes a \
            remote of the settings file, named after the book (or --name), with its password in secrets/.

            The password is read from standard input when it is not a terminal (one line), else at a prompt that \
            does not show it; never from an argument, which other users of the box can see. Make an app password \
            for the box rather than using the account's own.

            Google (and --provider oauth, any server that takes OAuth tokens) signs in instead: with \
            --client-id and --client-secret-file of your own OAuth client (the README says how to make one), the \
            command prints an address to open in any browser; sign in there and allow access, then paste the \
            address the browser ends on (it begins with http://127.0.0.1 and does not load) at the prompt, or on \
            standard input. The refresh token is kept in secrets/ as a password is.

            Where each provider makes its app password:
            \(SetupProvider.allCases.map { "- \($0.rawValue): \($0.passwordHelp)" }.joined(separator: "\n"))

            \(Exit.help("remote"))
            """)

    @OptionGroup var config: ConfigOptions

    @Option(
        help: ArgumentHelp(
            "icloud, google, fastmail, nextcloud, carddav (any server) or folder.", valueName: "provider"))
    var provider: String = "carddav"

    @Argument(help: "The server's or account's URL (nextcloud, carddav), or the folder's path (folder).")
    var address: String?

    @Option(help: "The user name (the account's e-mail address at iCloud, Google and Fastmail).")
    var username: String?

    @Option(
        help: ArgumentHelp(
            "Trust this CA certificate (PEM) for a server with its own authority; saved as the remote's ca_file.",
            valueName: "path"))
    var caFile: String?

    @Flag(help: "Add every address book found.")
    var all = false

    @Option(help: ArgumentHelp("Add this address book (a URL discovery lists); repeat for more.", valueName: "url"))
    var book: [String] = []

    @Option(help: ArgumentHelp("The remote's name, when one book is added (default: from the book's name)."))
    var name: String?

    @Option(help: ArgumentHelp("Signing in (google, oauth): your OAuth client's ID.", valueName: "id"))
    var clientID: String?

    @Option(
        help: ArgumentHelp(
            "Signing in: a file holding the client's secret (saved in secrets/ with the remote).", valueName: "path"))
    var clientSecretFile: String?

    @Option(help: ArgumentHelp("--provider oauth: the issuer's sign-in address.", valueName: "url"))
    var authorizationURL: String?

    @Option(help: ArgumentHelp("--provider oauth: the issuer's token address.", valueName: "url"))
    var tokenURL: String?

    @Option(help: ArgumentHelp("--provider oauth: the scope to ask for.", valueName: "scope"))
    var scope: String?

    func validate() throws {
        guard let provider = SetupProvider(rawValue: provider) else {
            throw ValidationError(
                "--provider must be one of " + SetupProvider.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if provider.needsLogin, username?.isEmpty ?? true { throw ValidationError("give --username") }
        if provider.needsAddress, address == nil {
            throw ValidationError(provider == .folder ? "give the folder's path" : "give the server's URL")
        }
        if all, !book.isEmpty { throw ValidationError("give --all or --book, not both") }
        if provider.signsIn, clientID?.isEmpty ?? true { throw ValidationError("give --client-id to sign in") }
        if !provider.signsIn, clientID != nil || clientSecretFile != nil {
            throw ValidationError("--client-id and --client-secret-file are for --provider google or oauth")
        }
        // The daemon reads the file from its own folder: a path relative to this shell's would name another.
        if let caFile, !caFile.hasPrefix("/") { throw ValidationError("give --ca-file as a full path, from /") }
    }

    func run() throws {
        let provider = SetupProvider(rawValue: provider) ?? .carddav
        let (setup, _, configuration) = try RemoteCommand.setup(config)
        var account = AddressBookSetup.Account(
            provider: provider, username: username ?? "", password: [], caFile: caFile)
        if provider.signsIn {
            account = try signIn(provider, setup: setup)
        } else if provider.needsLogin {
            if PasswordInput.standardInputIsTerminal { Terminal.note(provider.passwordHelp) }
            guard let password = PasswordInput.read(prompt: "App password for \(account.username) (not shown): ")
            else {
                Terminal.error("no password was given (type it at the prompt, or give it on standard input)")
                throw ExitCode.validationFailure
            }
            account.password = password
        }
        let found: [AddressBookSetup.Candidate]
        do {
            found = try setup.discover(
                provider, address: address, username: account.username, password: account.password,
                caFile: caFile, bearer: account.bearer)
        } catch {
            throw RemoteCommand.fail(error)
        }
        for (index, candidate) in found.enumerated() {
            let count = candidate.cardCount.map { "\t\($0) contact\($0 == 1 ? "" : "s")" } ?? ""
            // The server's URLs and names, escaped as every text from outside is (a tab too: one book a line).
            let name = candidate.displayName.map { printable($0) } ?? "(no name)"
            print("\(index + 1). \(printable(candidate.url))\t\(name)\(count)")
        }
        let chosen = try choose(from: found)
        if name != nil, chosen.count != 1 {
            Terminal.error("--name names one address book, and \(chosen.count) were chosen")
            throw ExitCode.validationFailure
        }
        // The settings file allows plain http for what the household chose (`allow_insecure_http`): it is told.
        for candidate in chosen where Self.isPlainHTTPElsewhere(candidate.url) {
            Terminal.warning(
                "\(printable(candidate.url)) is plain http: the password and the contacts cross the network "
                    + "unencrypted on every sync; use https:// if the server offers it")
        }
        // Every book is tested before anything is saved: one that fails keeps the others from being added too,
        // so that a person fixes it and runs the same command again.
        for candidate in chosen {
            let remote = setup.remote(for: candidate, account: account, name: name ?? "new")
            do {
                let outcome = try setup.test(remote, password: account.password, bearer: account.bearer)
                Terminal.notice(
                    "\(printable(candidate.url)): the test worked, \(outcome.contacts) contact\(outcome.contacts == 1 ? "" : "s")"
                )
            } catch {
                let code = RemoteCommand.fail(error, what: candidate.url)
                Terminal.note("Nothing was saved.")
                throw code
            }
        }
        // The state folder, which the service's unit makes; on a box where no command has made the store yet
        // (or a test's), the settings need it first.
        do {
            try FileSystem.makeParentDirectories(of: configuration.storePath)
        } catch {
            Terminal.error("cannot make the folder of \(configuration.storePath): \(error)")
            throw Exit.cannotCreate
        }
        let added: [RemoteSettings]
        do {
            added = try setup.add(chosen, account: account, names: [name])
        } catch {
            throw RemoteCommand.fail(error)
        }
        for remote in added {
            print("added \(remote.name): \(RemoteCommand.reloadAdvice)")
        }
    }

    /// Signs in at the issuer: the address to open, the one the browser ends on pasted back, the code traded for
    /// tokens. The account's password is then the refresh token.
    private func signIn(_ provider: SetupProvider, setup: AddressBookSetup) throws -> AddressBookSetup.Account {
        var secret: String?
        if let clientSecretFile {
            do {
                secret = try SecretSource.file(clientSecretFile).read()
            } catch {
                Terminal.error(error.description)
                throw ExitCode.validationFailure
            }
        }
        let username = username ?? ""
        do {
            let chosen = try AddressBookSetup.issuer(
                provider, clientID: clientID ?? "", clientSecret: secret, authorizationURL: authorizationURL,
                tokenURL: tokenURL, scope: scope)
            let attempt = AuthorizationAttempt(issuer: chosen.issuer, loginHint: provider == .google ? username : nil)
            print("Open this address in a browser, sign in and allow access:\n\n\(attempt.url)\n")
            // Out now, not when the buffer fills: a script reads it before it pastes the answer (nil: every stream).
            fflush(nil)
            Terminal.note("The browser then shows an address it cannot open (http://127.0.0.1:1/...): copy it whole.")
            guard let pasted = PasswordInput.answer(prompt: "Paste that address here: ") else {
                Terminal.error("nothing was pasted")
                throw ExitCode.validationFailure
            }
            let code: String
            do {
                code = try attempt.code(fromPasted: pasted)
            } catch {
                throw SetupFailure(error)
            }
            let grant = try setup.exchange(code, for: attempt)
            Terminal.notice("signed in")
            return AddressBookSetup.account(
                provider, username: username, settings: chosen.settings, clientSecret: chosen.issuer.clientSecret,
                grant: grant)
        } catch let failure as SetupFailure {
            throw RemoteCommand.fail(failure)
        }
    }

    /// `http://` to another machine than this one.
    static func isPlainHTTPElsewhere(_ url: String) -> Bool {
        guard url.lowercased().hasPrefix("http://") else { return false }
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host =
            authority.hasPrefix("[") ? authority.dropFirst().prefix { $0 != "]" } : authority.prefix { $0 != ":" }
        return !["localhost", "127.0.0.1", "::1"].contains(host.lowercased())
    }

    /// The books to add: --all, --book, or what a person types; a script that says neither is told how.
    private func choose(from found: [AddressBookSetup.Candidate]) throws -> [AddressBookSetup.Candidate] {
        if all { return found }
        if !book.isEmpty {
            // A book discovery did not list may still be given: the test checks that it is one.
            return book.map { url in
                found.first { DAVURL.sameResource($0.url, url) }
                    ?? AddressBookSetup.Candidate(url: url, displayName: nil)
            }
        }
        if found.count == 1, !PasswordInput.standardInputIsTerminal {
            Terminal.error("one address book was found: add it with --all or --book URL")
            throw ExitCode.validationFailure
        }
        guard PasswordInput.standardInputIsTerminal else {
            Terminal.error("\(found.count) address books were found: choose with --all or --book URL (repeated)")
            throw ExitCode.validationFailure
        }
        let answer = PasswordInput.answer(prompt: "Add which? (numbers separated by spaces, or all) ") ?? ""
        if answer.lowercased() == "all" { return found }
        var chosen: [AddressBookSetup.Candidate] = []
        for word in answer.split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard let number = Int(word), found.indices.contains(number - 1) else {
                Terminal.error("\(word) is not one of the numbers listed")
                throw ExitCode.validationFailure
            }
            chosen.append(found[number - 1])
        }
        guard !chosen.isEmpty else {
            Terminal.notice("nothing added")
            throw ExitCode.success
        }
        return chosen
    }
}

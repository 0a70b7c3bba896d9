import CardDAV
import Config
import ContactStore
import Glibc
import HTTP
import Logging
import Sync
import SystemSupport
import TestSupport
import Testing

@testable import Remotes

/// `AddressBookSetup` where no server is needed: names, presets, the household's words for each failure, and
/// adding and removing folder remotes in a settings file.
@Suite("Setting up address books without a server")
struct AddressBookSetupTests {
    /// A store folder with a settings file, an administrator who set `etc` remotes, and a folder of `.vcf` files.
    final class Box {
        let folder: TemporaryDirectory
        let setup: AddressBookSetup
        let books: String

        init(administratorRemotes: [String] = []) throws {
            folder = try TemporaryDirectory(prefix: "contactbox-setup")
            let settings = SettingsFile(path: folder.file("settings.toml"), secretsDirectory: folder.file("secrets"))
            setup = AddressBookSetup(
                settings: settings, administratorFile: "/etc/contactbox/contactbox.toml",
                administratorRemotes: administratorRemotes, logger: Logger(label: "test"), userAgent: "test")
            books = try folder.folder("books")
        }

        /// A folder `name` in `books` holding `cards` `.vcf` files; its path.
        func bookFolder(_ name: String, cards: Int = 0) throws -> String {
            let path = try folder.folder("books/" + name)
            for index in 0..<cards {
                let file = fopen(path + "/\(index).vcf", "w")
                fputs("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(index)\r\nFN:N\(index)\r\nEND:VCARD\r\n", file)
                fclose(file)
            }
            return path
        }

        var folderAccount: AddressBookSetup.Account {
            AddressBookSetup.Account(provider: .folder, username: "", password: [])
        }
    }

    @Test("a remote name is made from the book's name, numbered when either file has it")
    func names() {
        #expect(AddressBookSetup.remoteName(for: "Family Contacts", taken: []) == "family-contacts")
        #expect(AddressBookSetup.remoteName(for: "Müller & Söhne", taken: []) == "muller-sohne")
        #expect(AddressBookSetup.remoteName(for: "  ", taken: []) == "contacts")
        #expect(AddressBookSetup.remoteName(for: "联系人", taken: []) == "contacts")
        #expect(AddressBookSetup.remoteName(for: "Card", taken: ["card"]) == "card-2")
        #expect(AddressBookSetup.remoteName(for: "Card", taken: ["card", "card-2"]) == "card-3")
        let long = AddressBookSetup.remoteName(for: String(repeating: "a", count: 80), taken: [])
        #expect(long.count == 32)
        let longTaken = AddressBookSetup.remoteName(for: String(repeating: "a", count: 80), taken: [long])
        #expect(longTaken.count == 32 && longTaken.hasSuffix("-2"))
        for name in [long, longTaken, AddressBookSetup.remoteName(for: "-x-", taken: [])] {
            #expect(RemoteSettings.isValidName(name), "\(name)")
        }
    }

    @Test("each provider starts discovery where its service answers, and says where to make an app password")
    func presets() {
        #expect(SetupProvider.icloud.start(address: nil, username: "a@icloud.com") == "https://contacts.icloud.com/")
        #expect(SetupProvider.fastmail.start(address: nil, username: "a") == "https://carddav.fastmail.com/")
        #expect(
            SetupProvider.google.start(address: nil, username: "a@gmail.com")
                == "https://www.googleapis.com/carddav/v1/principals/a@gmail.com/lists/default/")
        #expect(
            SetupProvider.nextcloud.start(address: "cloud.example.org/", username: "a")
                == "https://cloud.example.org/remote.php/dav/")
        #expect(
            SetupProvider.nextcloud.start(address: "https://c.example/remote.php/dav/", username: "a")
                == "https://c.example/remote.php/dav/")
        #expect(SetupProvider.nextcloud.start(address: nil, username: "a") == nil)
        #expect(SetupProvider.carddav.start(address: " ", username: "a") == nil)
        #expect(SetupProvider.folder.start(address: "/srv/vcf", username: "") == "/srv/vcf")
        #expect(SetupProvider.icloud.passwordHelp.contains("appleid.apple.com"))
        #expect(SetupProvider.icloud.passwordHelp.contains("App-Specific Passwords"))
        #expect(SetupProvider.google.passwordHelp.contains("Sign in with Google"))
        #expect(SetupProvider.google.signsIn && SetupProvider.oauth.signsIn && !SetupProvider.icloud.signsIn)
        #expect(SetupProvider.fastmail.passwordHelp.contains("Privacy & Security"))
        #expect(SetupProvider.nextcloud.passwordHelp.contains("Devices & sessions"))
        #expect(!SetupProvider.folder.needsLogin && SetupProvider.icloud.needsLogin)
    }

    @Test("the remotes' and the HTTP client's errors become the household's words")
    func errorWords() {
        var refused = CardDAVError(.unauthorized, "PROPFIND /: 401 Unauthorized")
        refused.responseStatus = 401
        #expect(SetupFailure(refused).kind == .wrongPassword)
        #expect(SetupFailure(refused).message == "the server refused the login: make a new app password")
        #expect(SetupFailure(refused).description.hasSuffix("(PROPFIND /: 401 Unauthorized)"))
        var forbidden = CardDAVError(.unauthorized, "PROPFIND /: 403 Forbidden")
        forbidden.responseStatus = 403
        #expect(SetupFailure(forbidden).kind == .forbidden)
        #expect(SetupFailure(CardDAVError(.notFound, "404")).kind == .notFound)
        #expect(SetupFailure(CardDAVError(.malformedResponse, "an HTML page")).kind == .notCardDAV)
        #expect(SetupFailure(CardDAVError(.serverError(status: 500), "500")).kind == .busy)
        let tls = HTTPError(.tls, "the server's certificate (h) has expired; nothing was sent")
        #expect(SetupFailure(CardDAVError(.network(tls), tls.message)).kind == .certificate)
        #expect(SetupFailure(tls).message.hasSuffix("has expired; nothing was sent"))
        #expect(SetupFailure(HTTPError(.dns, "Could not resolve host")).kind == .unreachable)
        #expect(SetupFailure(HTTPError(.connect, "Connection refused")).kind == .unreachable)
        #expect(SetupFailure(HTTPError(.timeout, "slow")).kind == .tooSlow)
        #expect(SetupFailure(HTTPError(.refusedRedirect, "elsewhere")).kind == .notCardDAV)
        #expect(SetupFailure(RemoteError(.notFound, "folder missing")).kind == .notFound)
        #expect(SetupFailure(RemoteError(.unauthorized, "401")).kind == .wrongPassword)
    }

    @Test("a folder is found with its cards counted, tested, added under its name and removed again")
    func folderAddAndRemove() throws {
        let box = try Box()
        let path = try box.bookFolder("Family", cards: 3)
        let found = try box.setup.discover(.folder, address: path, username: "", password: [])
        #expect(found == [AddressBookSetup.Candidate(url: path, displayName: "Family", cardCount: 3)])
        let planned = box.setup.remote(for: found[0], account: box.folderAccount, name: "x")
        #expect(try box.setup.test(planned, password: []).contacts == 3)
        let added = try box.setup.add(found, account: box.folderAccount)
        #expect(added.map(\.name) == ["family"])
        let (settings, _) = try box.setup.settings.load()
        #expect(settings.remotes == [RemoteSettings(name: "family", kind: .vdir(folder: path, createFolder: false))])
        // The same book again is refused: two remotes would send the store's contacts to it twice.
        let twice = #expect(throws: SetupFailure.self) { try box.setup.add(found, account: box.folderAccount) }
        #expect(twice?.message == "\(path) is set up already, as family")
        let same = AddressBookSetup.Candidate(url: path + "/", displayName: "Family")
        #expect(throws: SetupFailure.self) { try box.setup.add([same], account: box.folderAccount) }
        let other = AddressBookSetup.Candidate(url: try box.bookFolder("Other"), displayName: "Family")
        #expect(try box.setup.add([other], account: box.folderAccount).map(\.name) == ["family-2"])
        let store = try ContactStore(path: box.folder.file("contacts.sqlite"))
        _ = try store.addRemote(name: "family", kind: .vdir, url: path)
        _ = try store.addRemote(name: "family-2", kind: .vdir, url: path)
        try box.setup.remove("family", store: store)
        #expect(try box.setup.settings.load().settings.remotes.map(\.name) == ["family-2"])
        // Its sync state goes; the other remote's stays.
        #expect(try store.remote(named: "family") == nil)
        #expect(try store.remote(named: "family-2") != nil)
        // The folder and its cards are untouched.
        #expect(access(path + "/0.vcf", F_OK) == 0)
        let missing = #expect(throws: SetupFailure.self) { try box.setup.remove("family") }
        #expect(missing?.kind == .notFound)
    }

    @Test("a folder that is missing, or that the service may not write, is refused before anything is saved")
    func folderRefusals() throws {
        let box = try Box()
        let missing = #expect(throws: SetupFailure.self) {
            try box.setup.discover(.folder, address: box.books + "/nosuch", username: "", password: [])
        }
        #expect(missing?.kind == .unreachable)
        let relative = #expect(throws: SetupFailure.self) {
            try box.setup.discover(.folder, address: "books", username: "", password: [])
        }
        #expect(relative?.kind == .invalid)
        // Root writes anywhere: the refusal of a read-only folder can only be seen by another user.
        if geteuid() != 0 {
            let locked = try box.bookFolder("locked")
            chmod(locked, 0o500)
            defer { chmod(locked, 0o700) }
            let refused = #expect(throws: SetupFailure.self) {
                try box.setup.discover(.folder, address: locked, username: "", password: [])
            }
            #expect(refused?.kind == .folderNotWritable)
            #expect(refused?.message.contains("ReadWritePaths=") == true)
        }
        #expect(access(box.setup.settings.path, F_OK) != 0)
    }

    @Test("run as root, a folder is judged by what the state folder's owner, the service's user, may write")
    func folderForTheServiceUser() throws {
        let box = try Box()
        let book = try box.bookFolder("Shared")
        chmod(book, 0o755)
        if geteuid() == 0 {
            // The state folder belongs to the service's user (nobody, here); the book to root.
            chown(box.folder.path, 65534, 65534)
            let refused = #expect(throws: SetupFailure.self) {
                try box.setup.discover(.folder, address: book, username: "", password: [])
            }
            #expect(refused?.kind == .folderNotWritable)
            #expect(refused?.message.contains("the service's user may not write") == true)
            chown(book, 65534, 65534)
        }
        #expect(try box.setup.discover(.folder, address: book, username: "", password: []).count == 1)
    }

    @Test("names the administrator's file uses are skipped when picked and refused when given")
    func administratorNames() throws {
        let box = try Box(administratorRemotes: ["family"])
        let found = [AddressBookSetup.Candidate(url: try box.bookFolder("Family"), displayName: "Family")]
        #expect(try box.setup.add(found, account: box.folderAccount).map(\.name) == ["family-2"])
        let other = [AddressBookSetup.Candidate(url: try box.bookFolder("Other"), displayName: "Other")]
        let given = #expect(throws: SetupFailure.self) {
            try box.setup.add(other, account: box.folderAccount, names: ["family"])
        }
        #expect(given?.kind == .refused)
        #expect(
            given?.message
                == "family is set by the administrator in /etc/contactbox/contactbox.toml: choose another name")
        let removal = #expect(throws: SetupFailure.self) { try box.setup.remove("family") }
        #expect(
            removal?.message == "family is set by the administrator in /etc/contactbox/contactbox.toml: remove it there"
        )
        #expect(try box.setup.settings.load().settings.remotes.map(\.name) == ["family-2"])
    }

    @Test("both files together hold at most the remote limit")
    func remoteLimit() throws {
        let box = try Box(administratorRemotes: (1..<Configuration.remoteLimit).map { "etc\($0)" })
        let path = try box.bookFolder("One")
        let one = AddressBookSetup.Candidate(url: path, displayName: "One")
        _ = try box.setup.add([one], account: box.folderAccount)
        let refused = #expect(throws: SetupFailure.self) { try box.setup.add([one], account: box.folderAccount) }
        #expect(refused?.kind == .refused)
        #expect(refused?.message.contains("at most \(Configuration.remoteLimit) address books") == true)
    }

    @Test("a save from a version another save replaced is refused, and its passwords are not left behind")
    func concurrentSave() throws {
        let box = try Box()
        let settings = box.setup.settings
        let before = try settings.load().version
        // Another browser saves first.
        let other = RemoteSettings(name: "other", kind: .vdir(folder: try box.bookFolder("Other"), createFolder: false))
        try settings.save(HouseholdConfiguration(remotes: [other]), expecting: before)
        let account = AddressBookSetup.Account(provider: .carddav, username: "ann", password: Array("pw".utf8))
        let book = AddressBookSetup.Candidate(url: "https://dav.example/ann/book/", displayName: "Book")
        let refused = #expect(throws: SetupFailure.self) {
            try box.setup.add([book], account: account, expecting: before)
        }
        #expect(refused?.kind == .changedMeanwhile)
        #expect(refused?.message.contains("changed meanwhile") == true)
        #expect(access(settings.passwordPath(forRemote: "book"), F_OK) != 0)
        #expect(try settings.load().settings.remotes == [other])
        let removal = #expect(throws: SetupFailure.self) { try box.setup.remove("other", expecting: before) }
        #expect(removal?.kind == .changedMeanwhile)
        #expect(try settings.load().settings.remotes == [other])
    }

    @Test("a CardDAV book is saved with its password in the secrets folder, which removal deletes")
    func carddavPassword() throws {
        let box = try Box()
        let settings = box.setup.settings
        let account = AddressBookSetup.Account(provider: .icloud, username: "ann", password: Array("app-pw".utf8))
        let books = [
            AddressBookSetup.Candidate(url: "https://dav.example/ann/a/", displayName: "Card"),
            AddressBookSetup.Candidate(url: "https://dav.example/ann/b/", displayName: nil),
        ]
        let added = try box.setup.add(books, account: account)
        #expect(added.map(\.name) == ["card", "icloud"])
        let file = settings.passwordPath(forRemote: "card")
        #expect(try SecretSource.file(file).read() == "app-pw")
        let text = String(decoding: try SmallFile.read(settings.path, limit: 1 << 20), as: UTF8.self)
        #expect(!text.contains("app-pw"))
        try box.setup.remove("card")
        #expect(access(file, F_OK) != 0)
        #expect(access(settings.passwordPath(forRemote: "icloud"), F_OK) == 0)
        // A password with a line break is refused before anything is written.
        let bad = AddressBookSetup.Account(provider: .carddav, username: "ann", password: Array("a\nb".utf8))
        let refused = #expect(throws: SetupFailure.self) { try box.setup.add([books[0]], account: bad) }
        #expect(refused?.kind == .invalid)
        #expect(try settings.load().settings.remotes.map(\.name) == ["icloud"])
    }

    @Test("a server that takes the connection and never answers is too slow when the setup's time runs out")
    func silentServer() throws {
        let box = try Box()
        // A listening socket that never accepts: the kernel completes the connection, and nobody answers.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                    && listen(descriptor, 8) == 0
            }
        }
        try #require(listening)
        var setup = box.setup
        setup.deadlineLimit = .seconds(1)
        let refused = #expect(throws: SetupFailure.self) {
            try setup.discover(
                .carddav, address: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/", username: "a",
                password: Array("p".utf8))
        }
        #expect(refused?.kind == .tooSlow, "\(String(describing: refused))")
        #expect(refused?.message == "the server answered too slowly: try again later")
    }

    @Test("only web addresses are tried")
    func addresses() throws {
        let box = try Box()
        for address in ["ftp://example.org/", "file:///etc/passwd", "https://exa mple.org/"] {
            let refused = #expect(throws: SetupFailure.self) {
                try box.setup.discover(.carddav, address: address, username: "a", password: Array("p".utf8))
            }
            #expect(refused?.kind == .invalid, "\(address)")
        }
    }
}

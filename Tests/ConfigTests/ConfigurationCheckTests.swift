import Glibc
import TestSupport
import Testing

@testable import Config

/// `Configuration.check`: the one check that `check-config`, the daemon's start and its reload on SIGHUP run.
/// `.timeLimit` only guards against a reader that would wait on a FIFO.
@Suite("One check of the configuration", .timeLimit(.minutes(5)))
struct ConfigurationCheckTests {
    /// A configuration file in `directory` whose CardDAV remote reads its password from `password`.
    func write(_ directory: TemporaryDirectory, password: String) -> String {
        let path = directory.file("contactbox.toml")
        makeFile(
            path,
            """
            [[remote]]
            name = "icloud"
            kind = "carddav"
            url = "https://contacts.icloud.com/"
            username = "someone@icloud.com"
            password_file = "\(password)"
            """, mode: 0o644)
        return path
    }

    @Test("A password file holding a NUL byte is refused, naming the file and never the password")
    func refusesNulByte() throws {
        let directory = try TemporaryDirectory()
        let password = directory.file("icloud.password")
        makeFile(password, "S3cr3t\0bar\n")
        let result = Configuration.check(path: write(directory, password: password))
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(result.errors.count == 1)
        #expect(problem.description.contains(password), "\(problem)")
        #expect(problem.description.contains("NUL byte"), "\(problem)")
        #expect(!problem.description.contains("S3cr3t"), "\(problem)")
        #expect(!problem.description.contains("bar"), "\(problem)")
    }

    @Test(
        "A password file not there yet (the example configuration's) lets the daemon start; check-config names it"
    )
    func missingPasswordFileIsWhatTheBoxLacks() throws {
        let directory = try TemporaryDirectory()
        let password = directory.file("icloud.password")
        let path = write(directory, password: password)
        let daemon = Configuration.check(path: path)
        #expect(daemon.errors.isEmpty && daemon.configuration != nil, "\(daemon.errors)")
        let checkConfig = Configuration.check(path: path, boardsDirectory: directory.path)
        #expect(
            checkConfig.errors.map(\.description).contains {
                $0.contains("remote \"icloud\": password file \(password): cannot read: No such file or directory")
            }, "\(checkConfig.errors)")
    }

    @Test("A FIFO as a password file is refused at once, saying it is a FIFO")
    func refusesFifo() throws {
        let directory = try TemporaryDirectory()
        let password = directory.file("icloud.password")
        #expect(mkfifo(password, 0o600) == 0)
        let result = Configuration.check(path: write(directory, password: password))
        #expect(result.configuration == nil)
        let problem = try #require(result.errors.first)
        #expect(problem.description.contains(password), "\(problem)")
        #expect(problem.description.contains("is a FIFO (named pipe), not a regular file"), "\(problem)")
    }

    @Test("A folder as a password file is refused, saying it is a folder")
    func refusesFolder() throws {
        let directory = try TemporaryDirectory()
        let result = Configuration.check(path: write(directory, password: directory.path))
        let problem = try #require(result.errors.first)
        #expect(problem.description.contains("is a folder, not a regular file"), "\(problem)")
    }

    @Test("A good password file passes the check, without the box's folders and board")
    func acceptsGoodPassword() throws {
        let directory = try TemporaryDirectory()
        let password = directory.file("icloud.password")
        makeFile(password, "S3cr3t\n")
        let result = Configuration.check(path: write(directory, password: password))
        #expect(result.errors == [])
        #expect(result.configuration?.remotes.map(\.name) == ["icloud"])
    }

    @Test("A long password file path is shown by its first 80 characters and its length")
    func showsLongPathShort() throws {
        let directory = try TemporaryDirectory()
        let password = "/" + String(repeating: "p", count: 4_999)
        let result = Configuration.check(path: write(directory, password: password))
        let problem = try #require(result.errors.first)
        #expect(problem.description.contains("/" + String(repeating: "p", count: 79) + "… (5,000 bytes)"), "\(problem)")
        #expect(problem.description.utf8.count < 400, "\(problem)")
    }

    @Test("More remotes than the limit are one problem, on the line of the first one too many")
    func refusesTooManyRemotes() throws {
        func remotes(_ count: Int) -> String {
            (1...count).map { "[[remote]]\nname = \"r\($0)\"\nkind = \"vdir\"\nfolder = \"/srv/r\($0)\"\n" }.joined()
        }
        let limit = Configuration.remoteLimit
        #expect(problems(remotes(limit)) == [])
        let found = problems(remotes(1_000))
        #expect(
            found == [
                "\(configPath):\(limit * 4 + 1): too many [[remote]] blocks: 1,000 found, at most \(limit) are "
                    + "allowed; a box syncs a household's address books, not more"
            ])
    }

    @Test("A long value is quoted by its first 80 characters, an ellipsis and its length")
    func quotesLongValueShort() {
        let value = String(repeating: "a", count: 1_000_000)
        let found = problems(makeText(replacing: "conflict = \"newest\"", with: "conflict = \"\(value)\""))
        #expect(
            found == [
                "\(configPath):14: remote \"icloud\": conflict must be one of newest, local, remote (found \""
                    + String(repeating: "a", count: 80) + "…\" (1,000,000 bytes))"
            ])
    }

    @Test("A value of 80 characters or fewer is quoted whole")
    func quotesShortValueWhole() {
        #expect(
            Configuration.quoted(String(repeating: "b", count: 80)) == "\"" + String(repeating: "b", count: 80) + "\"")
        #expect(Configuration.shown("x") == "x")
        #expect(
            Configuration.shown(String(repeating: "c", count: 81)) == String(repeating: "c", count: 80) + "… (81 bytes)"
        )
        #expect(Configuration.grouped(1_048_576) == "1,048,576")
        #expect(Configuration.grouped(999) == "999")
    }
}

import Foundation
import TestSupport
import Testing

/// `contactbox token create|list|revoke` on the store's folder, as a person or an install script runs it.
@Suite("API tokens from the command line")
struct TokenCommandTests {
    /// A workspace whose store folder exists, as the installer makes /var/lib/contactbox.
    func workspace() throws -> Workspace {
        let work = try Workspace()
        try FileManager.default.createDirectory(
            atPath: (work.db as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return work
    }

    @Test("create prints the token alone, once; list shows it without the secret; revoke ends it")
    func createListRevoke() throws {
        let work = try workspace()
        let created = try contactbox(["token", "create", "backup", "--db", work.db])
        #expect(created.status == 0, "\(created.stderr)")
        let token = created.stdout.trimmingCharacters(in: .newlines)
        #expect(created.stdout == token + "\n")
        #expect(token.hasPrefix("cbx_") && token.count == 36)
        #expect(created.stderr.contains("made the token backup, which may read the contacts (not change them)"))
        #expect(created.stderr.contains("shown this once"))
        #expect(!created.stderr.contains(token))

        let writer = try contactbox(["token", "create", "home-assistant", "--write", "--db", work.db])
        #expect(writer.status == 0, "\(writer.stderr)")
        #expect(writer.stderr.contains("which may read and change the contacts"))
        let writerToken = writer.stdout.trimmingCharacters(in: .newlines)

        let file = try work.read("store/api-tokens")
        #expect(!file.contains(token) && !file.contains(writerToken))
        var info = stat()
        #expect(stat(work.path + "/store/api-tokens", &info) == 0 && info.st_mode & 0o777 == 0o600)

        let listed = try contactbox(["token", "list", "--db", work.db])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.map { $0.first } == ["backup", "home-assistant"])
        #expect(lines.map { $0.count } == [4, 4])
        #expect(lines.map { $0.dropFirst().first } == ["read", "write"])
        #expect(lines.map { $0.last } == ["never", "never"])
        #expect(!listed.stdout.contains(token) && !listed.stdout.contains(String(token.dropFirst(4))))
        #expect(!listed.stdout.contains(writerToken))

        let revoked = try contactbox(["token", "revoke", "backup", "--db", work.db])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout.hasPrefix("revoked the token backup"))
        let after = try contactbox(["token", "list", "--db", work.db])
        #expect(after.stdout.split(separator: "\n").map { $0.split(separator: "\t").first } == ["home-assistant"])

        let again = try contactbox(["token", "revoke", "backup", "--db", work.db])
        #expect(again.status == 1)
        #expect(again.stderr == "contactbox: no token named backup (`contactbox token list` shows them)\n")
    }

    @Test("a bad name is bad usage (64), a name taken is 78, a missing folder 73 naming the file; nothing printed")
    func refusals() throws {
        let work = try workspace()
        for bad in ["two words", "a/b", String(repeating: "x", count: 33), "naïve"] {
            let refused = try contactbox(["token", "create", bad, "--db", work.db])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.hasPrefix("contactbox: a token's name is 1 to 32 letters, digits, dots, dashes"))
        }
        #expect(!FileManager.default.fileExists(atPath: work.path + "/store/api-tokens"))

        #expect(try contactbox(["token", "create", "backup", "--db", work.db]).status == 0)
        let taken = try contactbox(["token", "create", "backup", "--write", "--db", work.db])
        #expect(taken.status == 78)
        #expect(taken.stdout.isEmpty)
        #expect(
            taken.stderr == "contactbox: a token named backup exists already: revoke it first, or choose another name\n"
        )

        let nowhere = try contactbox(["token", "create", "backup", "--db", work.path + "/missing/contacts.sqlite"])
        #expect(nowhere.status == 73)
        #expect(nowhere.stdout.isEmpty)
        #expect(nowhere.stderr.hasPrefix("contactbox: cannot write the tokens file \(work.path)/missing/api-tokens: "))

        let unknown = try contactbox(["token", "revoke", "bad\u{1B}[2J", "--db", work.db])
        #expect(unknown.status == 1)
        #expect(!unknown.stderr.contains("\u{1B}"))
    }

    @Test("list on a fresh box says there is no token yet; help explains read and write, once, and curl")
    func emptyAndHelp() throws {
        let work = try workspace()
        let empty = try contactbox(["token", "list", "--db", work.db])
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
        #expect(empty.stderr == "contactbox: no token yet: `contactbox token create NAME` makes one\n")

        let help = try contactbox(["token", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        #expect(text.contains("curl -H \"Authorization: Bearer $TOKEN\" http://contactbox.local/api/contacts"))
        #expect(text.contains("--write may also change and delete contacts"))
        #expect(text.contains("this once"))
        #expect(try contactbox(["--help"]).stdout.contains("Make, list or revoke the JSON API's tokens"))
    }
}

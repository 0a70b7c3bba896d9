import Glibc
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import StatusServer

/// The wall clock (unix seconds) and the monotonic one (milliseconds) of a token store, moved by the test.
final class TokenClocks: Sendable {
    private let times = Mutex<(seconds: Int64, millis: Int64)>((1_800_000_000, 5_000))

    var seconds: Int64 { times.withLock { $0.seconds } }
    var millis: Int64 { times.withLock { $0.millis } }

    func advance(seconds: Int64) {
        times.withLock {
            $0.seconds += seconds
            $0.millis += seconds * 1000
        }
    }

    func tokens(_ folder: TemporaryDirectory) -> APITokens {
        APITokens(folder: folder.path, wallClock: { self.seconds }, clock: { self.millis })
    }
}

@Suite("The JSON API's tokens")
struct APITokensTests {
    func text(_ folder: TemporaryDirectory) throws -> String {
        String(decoding: try SmallFile.read(folder.file("api-tokens"), limit: 65_536), as: UTF8.self)
    }

    @Test("a token made is shown once, checks as its name and scope; another, a malformed or a changed one does not")
    func createAndCheck() throws {
        let folder = try TemporaryDirectory()
        let tokens = TokenClocks().tokens(folder)
        let reader = try tokens.create(name: "backup", write: false)
        let writer = try tokens.create(name: "home-assistant", write: true)
        #expect(reader != writer)
        #expect(reader.hasPrefix("cbx_") && reader.utf8.count == 36)
        #expect(reader.dropFirst(4).allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
        #expect(tokens.check(bearer: reader) == APITokens.Access(name: "backup", canWrite: false))
        #expect(tokens.check(bearer: writer) == APITokens.Access(name: "home-assistant", canWrite: true))

        let lastCharacter: Character = reader.last == "a" ? "b" : "a"
        #expect(tokens.check(bearer: String(reader.dropLast()) + String(lastCharacter)) == nil)
        #expect(tokens.check(bearer: reader.uppercased()) == nil)
        #expect(tokens.check(bearer: reader + "a") == nil)
        #expect(tokens.check(bearer: "") == nil)
        #expect(tokens.check(bearer: "cbx_") == nil)
        #expect(tokens.check(bearer: APITokens.newToken()) == nil)
    }

    @Test("the file holds each token's SHA-256, never the token, with its name, scope and times; mode 0600")
    func fileHoldsDigests() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let tokens = clocks.tokens(folder)
        let token = try tokens.create(name: "backup", write: true)
        let text = try text(folder)
        #expect(!text.contains(token))
        #expect(!text.contains(String(token.dropFirst(4))))
        let digest = PairingSecret.hex(PairingSecret.sha256(Array(token.utf8)))
        #expect(text.hasPrefix("# ContactBox: "))
        #expect(text.hasSuffix("\ntoken backup write \(digest) 1800000000 0\n"), "\(text)")
        var info = stat()
        #expect(stat(folder.file("api-tokens"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(tokens.list() == [APITokens.Info(name: "backup", scope: .write, created: 1_800_000_000, lastUsed: nil)])
    }

    @Test("a use is written down at once the first time, then at most every five minutes; another process sees it")
    func lastUse() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let tokens = clocks.tokens(folder)
        let token = try tokens.create(name: "backup", write: false)
        clocks.advance(seconds: 10)
        #expect(tokens.check(bearer: token) != nil)
        #expect(try text(folder).hasSuffix(" 1800000000 1800000010\n"))
        clocks.advance(seconds: 60)
        #expect(tokens.check(bearer: token) != nil)
        // In memory at once, in the file later.
        #expect(tokens.list().first?.lastUsed == 1_800_000_070)
        #expect(try text(folder).hasSuffix(" 1800000000 1800000010\n"))
        #expect(clocks.tokens(folder).list().first?.lastUsed == 1_800_000_010)
        clocks.advance(seconds: APITokens.lastUseResolution)
        #expect(tokens.check(bearer: token) != nil)
        #expect(try text(folder).hasSuffix(" 1800000000 1800000370\n"))
        #expect(clocks.tokens(folder).list().first?.lastUsed == 1_800_000_370)
    }

    @Test("a token revoked by another process (the command line) is refused once the file is looked at again")
    func revokedElsewhere() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let daemon = clocks.tokens(folder)
        let command = clocks.tokens(folder)
        let made = try command.create(name: "backup", write: false)
        // The daemon read the file before it was made: it looks again a second later.
        clocks.advance(seconds: 1)
        #expect(daemon.check(bearer: made) == APITokens.Access(name: "backup", canWrite: false))
        let kept = try command.create(name: "phone", write: true)

        #expect(try clocks.tokens(folder).revoke(name: "backup"))
        clocks.advance(seconds: 1)
        #expect(daemon.check(bearer: made) == nil)
        #expect(daemon.check(bearer: kept) == APITokens.Access(name: "phone", canWrite: true))
        #expect(daemon.list().map(\.name) == ["phone"])
        #expect(try !clocks.tokens(folder).revoke(name: "backup"))
    }

    @Test("a use written by the daemon keeps what the command line wrote meanwhile: a revoke is not undone")
    func lastUseKeepsRevoke() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let daemon = clocks.tokens(folder)
        let command = clocks.tokens(folder)
        let first = try command.create(name: "first", write: false)
        let second = try command.create(name: "second", write: false)
        clocks.advance(seconds: 1)
        #expect(daemon.check(bearer: first) != nil)
        // Revoked and made by the command line within the second in which the daemon does not look at the file.
        #expect(try command.revoke(name: "first"))
        _ = try command.create(name: "third", write: true)
        // Its first use is written down at once, into the file as it is now.
        #expect(daemon.check(bearer: second) != nil)
        let names = APITokens.parse(Array(try text(folder).utf8)).map(\.name)
        #expect(names == ["second", "third"])
        #expect(daemon.check(bearer: first) == nil)
        #expect(daemon.list().map(\.name) == ["second", "third"])
    }

    @Test("names: 1 to 32 of letters, digits, dots, dashes, underscores, each once; at most 32 tokens")
    func names() throws {
        let folder = try TemporaryDirectory()
        let tokens = TokenClocks().tokens(folder)
        for bad in ["", String(repeating: "a", count: 33), "two words", "a/b", "naïve", "tab\there", "new\nline", "ü"] {
            do {
                _ = try tokens.create(name: bad, write: false)
                Issue.record("made with the name \(bad)")
            } catch {
                #expect(error.kind == .badName)
                #expect(error.description.hasPrefix("a token's name is 1 to 32 letters, digits, dots, dashes or "))
                #expect(!error.description.contains("\n") && !error.description.contains("\t"))
            }
        }
        #expect(!SmallFile.exists(folder.file("api-tokens")))
        _ = try tokens.create(name: String(repeating: "a", count: 32), write: false)
        _ = try tokens.create(name: "Backup_2.nas-1", write: false)
        do {
            _ = try tokens.create(name: "Backup_2.nas-1", write: true)
            Issue.record("a name taken twice")
        } catch {
            #expect(error.kind == .nameTaken)
            #expect(
                error.description
                    == "a token named Backup_2.nas-1 exists already: revoke it first, or choose another name")
        }
        for index in 2..<APITokens.tokenLimit { _ = try tokens.create(name: "t\(index)", write: false) }
        #expect(tokens.list().count == 32)
        do {
            _ = try tokens.create(name: "one-more", write: false)
            Issue.record("a 33rd token")
        } catch {
            #expect(error.kind == .tooMany)
        }
        #expect(try tokens.revoke(name: "t2"))
        _ = try tokens.create(name: "one-more", write: false)
    }

    @Test("lines that do not parse are skipped, the others kept; the file written again without them")
    func garbageSkipped() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let token = try clocks.tokens(folder).create(name: "good", write: true)
        let good = try text(folder).split(separator: "\n").last.map(String.init) ?? ""
        let digest = PairingSecret.hex(PairingSecret.sha256(Array(token.utf8)))
        let damaged = [
            "# a comment", "garbage", "token", "token bad name read \(digest) 1 0", "token x admin \(digest) 1 0",
            "token y read abcd 1 0", "token z read \(digest) soon 0", "token w read \(digest) 1 0 extra",
            "token  read \(digest) 1 0", good, "token good read \(digest) 5 0",
            String(decoding: [0xff, 0xfe, 0x20], as: UTF8.self),
        ].joined(separator: "\n")
        try SmallFile.replace(folder.file("api-tokens"), with: Array(damaged.utf8), mode: 0o600)
        let tokens = clocks.tokens(folder)
        #expect(tokens.list().map(\.name) == ["good"])
        #expect(tokens.check(bearer: token) == APITokens.Access(name: "good", canWrite: true))
        #expect(tokens.readProblem == nil)
        _ = try tokens.create(name: "second", write: false)
        #expect(try text(folder).split(separator: "\n").count == 3)
    }

    @Test("a file that cannot be read refuses every token and is not written over")
    func unreadable() throws {
        let folder = try TemporaryDirectory()
        let clocks = TokenClocks()
        let tokens = clocks.tokens(folder)
        let token = try tokens.create(name: "good", write: true)
        // Too large to be a tokens file: a reader that is not the owner would see EACCES, which root ignores.
        let before = try text(folder)
        let large = before + String(repeating: "# padding\n", count: 7000)
        try SmallFile.replace(folder.file("api-tokens"), with: Array(large.utf8), mode: 0o600)
        clocks.advance(seconds: 1)
        #expect(tokens.check(bearer: token) == nil)
        #expect(tokens.readProblem?.kind == .cannotRead)
        #expect(tokens.readProblem?.description.contains(folder.file("api-tokens")) == true)
        do {
            _ = try tokens.create(name: "other", write: false)
            Issue.record("written over a file it could not read")
        } catch {
            #expect(error.kind == .cannotRead)
        }
        #expect(try SmallFile.read(folder.file("api-tokens"), limit: 100_000).count == large.utf8.count)
        try SmallFile.replace(folder.file("api-tokens"), with: Array(before.utf8), mode: 0o600)
        clocks.advance(seconds: 1)
        #expect(tokens.check(bearer: token) != nil)
    }

    @Test("a folder that is not there: the failure says where, and no token is made")
    func cannotWrite() throws {
        let folder = try TemporaryDirectory()
        let tokens = APITokens(folder: folder.path + "/missing")
        do {
            _ = try tokens.create(name: "backup", write: false)
            Issue.record("made without a folder")
        } catch {
            #expect(error.kind == .cannotWrite)
            #expect(error.description.hasPrefix("cannot write the tokens file \(folder.path)/missing/api-tokens: "))
        }
        #expect(tokens.list().isEmpty)
    }

    @Test("the bearer token of an Authorization header: the scheme in any case, one space or more; nothing else")
    func authorizationHeader() {
        let token = "cbx_abcdefghijklmnopqrstuvwxyz234567"
        #expect(APITokens.bearerToken(authorization: "Bearer \(token)") == token)
        #expect(APITokens.bearerToken(authorization: "bearer \(token)") == token)
        #expect(APITokens.bearerToken(authorization: "BEARER   \(token)") == token)
        #expect(APITokens.bearerToken(authorization: "Bearer \(token) \t") == token)
        #expect(APITokens.bearerToken(authorization: "Bearer abc+/~.-_==") == "abc+/~.-_==")
        for refused in [
            "", "Bearer", "Bearer ", "Bearer  ", "Bearer\t\(token)", "Bearer\(token)", "Basic \(token)",
            "Bearerx \(token)", " Bearer \(token)", "Bearer \(token) extra", "Bearer a=b", "Bearer =",
            "Bearer tök", "Bearer \(token)\n", "Token \(token)",
        ] {
            #expect(APITokens.bearerToken(authorization: refused) == nil, "\(refused)")
        }
    }
}

import Config
import Glibc
import Remotes
import Sync
import TestSupport
import Testing

@testable import Appliance

/// A small file written whole: the remote's password file.
enum SmallTextFile {
    static func write(_ text: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return }
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}

/// A remote's turn in a pass has a total deadline, whatever its requests' own limits and retries would allow: a
/// server that trickles its listing ends the turn with the deadline's words (exit 75, tried again later) and the
/// next remote has its turn.
@Suite("A remote's turn and its deadline", .timeLimit(.minutes(2)))
struct TurnDeadlineTests {
    @Test("a listing trickled a byte a second ends the turn at its deadline, and the next remote syncs")
    func tricklingListing() throws {
        let fixture = try PassFixture(contacts: 3)
        let server = try HostileCardDAVServer("trickle", logDirectory: fixture.directory.path)
        let passwordFile = fixture.directory.file("slow.password")
        SmallTextFile.write("secret\n", to: passwordFile)
        let nas = fixture.configuration.remotes
        fixture.configuration.remotes =
            [
                RemoteSettings(
                    name: "slow",
                    kind: .carddav(
                        url: server.bookURL, username: "user", password: .file(passwordFile), authScheme: .basic,
                        caFile: nil, caPath: nil, concurrency: 1))
            ] + nas
        let pass = fixture.makePass()
        // Far below the listing's own limits (240 s below 1 KiB/s, 5 minutes in all) and its 4 attempts.
        pass.turnLimit = .seconds(3)
        let result = pass.run(SyncRequest(.button), configuration: fixture.configuration) { false }

        let words = "too slow: slow's turn took more than 3 s; the next pass tries again"
        #expect(
            result
                == SyncPass.Result(
                    state: .needsAttention(.unreachable, reason: "slow could not be synced: \(words)"),
                    schedule: .retryLater))
        let remotes = fixture.news.shown.remotes
        #expect(remotes.map(\.name) == ["slow", "nas"])
        #expect(remotes.first?.lastResult == "failed")
        #expect(remotes.last?.lastResult == "ok")
        #expect(fixture.files().count == 3)
        // Exit 75 for `contactbox sync`: the kind a busy server's failure has too.
        let report = try RemoteFactory(store: fixture.store, logger: pass.logger, userAgent: "test").with(
            turnLimit: .seconds(2)
        ).sync(fixture.configuration.remotes[0], fixture.configuration.sync, confirmDeletions: false)
        #expect(
            report.failure
                == RemoteError(.tooSlow, "too slow: slow's turn took more than 2 s; the next pass tries again"))
    }

    @Test("the deadline's words give whole minutes as minutes")
    func words() {
        #expect(
            TurnDeadline().error(remote: "icloud").message
                == "too slow: icloud's turn took more than 10 min; the next pass tries again")
    }
}

extension RemoteFactory {
    func with(turnLimit: Duration) -> RemoteFactory {
        var factory = self
        factory.turnLimit = turnLimit
        return factory
    }
}

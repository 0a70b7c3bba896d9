import TestSupport
import Testing

@testable import StatusServer

@Suite("Password guesses are limited per client and for the whole box")
struct PasswordLimitTests {
    static let password = "correct horse: battery"

    @Test("Five wrong passwords are free, then lockouts of 1 s, 2 s, 4 s ... up to 15 min")
    func growingDelay() {
        var attempts = PasswordAttempts()
        var now: Int64 = 0
        for failure in 1...4 {
            #expect(attempts.wait(for: "10.0.0.5", now: now) == nil)
            #expect(attempts.failed("10.0.0.5", now: now) == (failure, nil))
            now += 10
        }
        var expected: Int64 = 1_000
        for failure in 5...20 {
            #expect(attempts.wait(for: "10.0.0.5", now: now) == nil)
            #expect(attempts.failed("10.0.0.5", now: now) == (failure, .milliseconds(expected)))
            #expect(attempts.wait(for: "10.0.0.5", now: now) == .milliseconds(expected))
            #expect(attempts.wait(for: "10.0.0.5", now: now + expected - 1) == .milliseconds(1))
            now += expected
            expected = min(expected * 2, 15 * 60 * 1_000)
        }
        #expect(expected == 15 * 60 * 1_000)
        #expect(PasswordAttempts.maxDelay == .seconds(15 * 60))
    }

    @Test("Success forgets the client; so does an hour without failures; other clients are not affected")
    func resets() {
        var attempts = PasswordAttempts()
        for _ in 1...6 { _ = attempts.failed("a", now: 0) }
        #expect(attempts.wait(for: "a", now: 0) != nil)
        #expect(attempts.wait(for: "b", now: 0) == nil)
        attempts.succeeded("a", now: 0)
        #expect(attempts.wait(for: "a", now: 0) == nil)
        #expect(attempts.failed("a", now: 0) == (1, nil))

        #expect(PasswordAttempts.forgetAfter == .seconds(60 * 60))
        let hour: Int64 = 60 * 60 * 1_000
        for _ in 1...20 { _ = attempts.failed("c", now: 0) }
        // Just under an hour after the last failure, the count stands, and the wait is at its cap.
        #expect(attempts.failed("c", now: hour - 1) == (21, PasswordAttempts.maxDelay))
        #expect(attempts.wait(for: "c", now: 2 * hour - 2) == nil)
        #expect(attempts.failed("c", now: 2 * hour - 1) == (1, nil))
    }

    @Test("400 addresses with 5 guesses each have at most the box's budget of guesses checked")
    func globalBudget() {
        var attempts = PasswordAttempts()
        var checked = 0
        var now: Int64 = 0
        for index in 0..<400 {
            for _ in 1...5 where attempts.wait(for: "10.0.\(index / 256).\(index % 256)", now: now) == nil {
                _ = attempts.failed("10.0.\(index / 256).\(index % 256)", now: now)
                checked += 1
            }
            now += 1
        }
        #expect(checked == PasswordAttempts.globalBurst)
        #expect(attempts.wait(for: "10.9.9.9", now: now) == .milliseconds(6_000 - now))
        // A minute later the bucket has refilled by ten, and no more.
        now += 60_000
        var later = 0
        for index in 0..<400 where attempts.wait(for: "10.1.\(index / 256).\(index % 256)", now: now) == nil {
            _ = attempts.failed("10.1.\(index / 256).\(index % 256)", now: now)
            later += 1
        }
        #expect(later == 10)
    }

    @Test("A client that gave the right password before is still checked while the budget is spent")
    func trustedClientChecked() {
        var attempts = PasswordAttempts()
        attempts.succeeded("192.168.1.30", now: 0)
        for index in 0..<50 where attempts.wait(for: "10.0.0.\(index)", now: 0) == nil {
            _ = attempts.failed("10.0.0.\(index)", now: 0)
        }
        #expect(attempts.wait(for: "10.0.1.1", now: 0) != nil)
        #expect(attempts.wait(for: "192.168.1.30", now: 0) == nil)
    }

    @Test("A locked address stays locked while 300 others fail, however long the table grows")
    func lockedStaysLocked() {
        var attempts = PasswordAttempts()
        for _ in 1...8 { _ = attempts.failed("first", now: 0) }
        #expect(attempts.wait(for: "first", now: 0) == .seconds(8))
        var now: Int64 = 0
        for index in 0..<300 {
            // One failure each, 6 s apart: within the box's budget, so every one is checked and remembered.
            now += 6_000
            #expect(attempts.wait(for: "10.0.\(index / 256).\(index % 256)", now: now) == nil)
            _ = attempts.failed("10.0.\(index / 256).\(index % 256)", now: now)
        }
        #expect(attempts.count == 301)
        // 30 minutes on, the 8th failure's 8 s are long past, but the count stands: the 9th locks for 16 s.
        #expect(attempts.failed("first", now: now).failures == 9)
        #expect(attempts.wait(for: "first", now: now) == .seconds(16))
    }

    @Test("A full table refuses a new client instead of forgetting one, until an entry expires")
    func fullTableRefusesNewcomers() {
        // The box's budget lifted, to fill the table at once.
        var attempts = PasswordAttempts(globalBurst: 1_000_000)
        var now: Int64 = 0
        for index in 0..<PasswordAttempts.maxClients {
            now += 1
            _ = attempts.failed("10.\(index / 65536).\(index / 256 % 256).\(index % 256)", now: now)
        }
        #expect(attempts.count == PasswordAttempts.maxClients)
        #expect(attempts.wait(for: "172.16.0.1", now: now) != nil)
        #expect(attempts.wait(for: "10.0.0.5", now: now) == nil)
        #expect(attempts.count == PasswordAttempts.maxClients)
        // An hour after the first failures, their entries expire and make room.
        now = 1 + PasswordAttempts.forgetAfter.wholeMilliseconds
        #expect(attempts.wait(for: "172.16.0.1", now: now) == nil)
        #expect(attempts.count < PasswordAttempts.maxClients)
    }

    @Test("Two IPv6 addresses in one /64 share a count; another /64 and IPv4 have their own")
    func ipv6Prefix() {
        #expect(PasswordAttempts.key(for: "2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(PasswordAttempts.key(for: "2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(PasswordAttempts.key(for: "2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(PasswordAttempts.key(for: "192.168.1.20") == "192.168.1.20")
        var attempts = PasswordAttempts()
        for _ in 1...3 { _ = attempts.failed(PasswordAttempts.key(for: "2001:db8:1:2::1"), now: 0) }
        let shared = attempts.failed(PasswordAttempts.key(for: "2001:db8:1:2:ffff::9"), now: 0)
        #expect(shared.failures == 4)
        #expect(attempts.failed(PasswordAttempts.key(for: "2001:db8:1:3::1"), now: 0).failures == 1)
    }

    private func status(
        _ server: StatusServer, password: String?, from source: String = "127.0.0.1"
    ) throws -> HTTPTestResponse {
        let headers = password.map { [("Authorization", HTTPTestClient.basicAuthorization(user: "me", password: $0))] }
        return try HTTPTestClient.request(port: server.port, path: "/api/status", headers: headers ?? [], from: source)
    }

    @Test("Over the wire: locked out with 429 and Retry-After, the right password too, until the clock moves")
    func lockoutOverTheWire() throws {
        let clock = ManualClock()
        let records = LogRecords()
        let recorder = SyncRecorder()
        let server = try makeServer(password: Self.password, recorder: recorder, records: records, clock: clock)
        for _ in 1...5 { #expect(try status(server, password: "guess").status == 401) }

        let locked = try status(server, password: "guess")
        #expect(locked.status == 429)
        #expect(locked.header("Retry-After") == "1")
        #expect(locked.header("WWW-Authenticate") == nil)
        #expect(!locked.body.contains("812"))
        // The right password does not open a locked door, nor does a sync request.
        #expect(try status(server, password: Self.password).status == 429)
        let sync = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/sync",
            headers: [("Authorization", HTTPTestClient.basicAuthorization(user: "", password: Self.password))])
        #expect(sync.status == 429)
        #expect(recorder.count == 0)
        // Another client (127.0.0.2 is this machine too) is not affected.
        #expect(try status(server, password: Self.password, from: "127.0.0.2").status == 200)

        clock.advance(.milliseconds(999))
        #expect(try status(server, password: Self.password).status == 429)
        clock.advance(.milliseconds(1))
        // The sixth wrong password doubles the wait.
        #expect(try status(server, password: "guess").status == 401)
        #expect(try status(server, password: Self.password).header("Retry-After") == "2")
        clock.advance(.seconds(2))
        #expect(try status(server, password: Self.password).status == 200)
        // Success forgets the failures: the next wrong one is the first again.
        #expect(try status(server, password: "guess").status == 401)
        #expect(try status(server, password: Self.password).status == 200)
    }

    @Test("Over the wire: once the box's budget is spent, new addresses get 429, one that logged in before is checked")
    func globalBudgetOverTheWire() throws {
        let clock = ManualClock()
        let server = try makeServer(password: Self.password, clock: clock)
        #expect(try status(server, password: Self.password, from: "127.0.1.1").status == 200)
        var statuses: [Int] = []
        for index in 1...30 { statuses.append(try status(server, password: "guess", from: "127.0.2.\(index)").status) }
        #expect(statuses.filter { $0 == 401 }.count == PasswordAttempts.globalBurst)
        #expect(statuses.filter { $0 == 429 }.count == 30 - PasswordAttempts.globalBurst)
        let refused = try status(server, password: Self.password, from: "127.0.3.1")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "6")
        #expect(try status(server, password: Self.password, from: "127.0.1.1").status == 200)
        clock.advance(PasswordAttempts.globalInterval)
        #expect(try status(server, password: Self.password, from: "127.0.3.1").status == 200)
    }

    @Test("Each wrong password is logged at notice with the client, never with the password")
    func logged() throws {
        let records = LogRecords()
        let server = try makeServer(password: Self.password, records: records)
        for _ in 1...5 { _ = try status(server, password: "hunter2-guess") }
        _ = try status(server, password: nil)
        let notices = records.lines.filter { $0.hasPrefix("notice ") }
        #expect(notices.count == 5)
        #expect(notices[0] == "notice Wrong status page password status.client=127.0.0.1 status.failures=1")
        #expect(
            notices[4]
                == "notice Wrong status page password: client locked out status.client=127.0.0.1 status.failures=5 "
                + "status.retry_after=1s")
        let log = records.lines.joined(separator: "\n")
        for secret in ["hunter2", Self.password, "Authorization", "Basic "] { #expect(!log.contains(secret)) }
    }

    @Test("A request without credentials is no guess: a browser's first visit never counts")
    func noCredentialsNoCount() throws {
        let server = try makeServer(password: Self.password)
        for _ in 1...20 { #expect(try status(server, password: nil).status == 401) }
        #expect(try status(server, password: Self.password).status == 200)
    }
}

import Glibc
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import StatusServer

/// A wall clock a test moves.
final class WallClock: Sendable {
    private let seconds = Mutex<Int64>(1_800_000_000)

    var now: Int64 { seconds.withLock { $0 } }

    func advance(days: Int64) {
        seconds.withLock { $0 += days * 86_400 }
    }
}

@Suite("Pairing a browser with the box's button")
struct PairingTests {
    static func sameOrigin(_ port: UInt16) -> [(String, String)] {
        [("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")]
    }

    /// The cookie's secret, from a `Set-Cookie` answer.
    static func cookie(_ response: HTTPTestResponse) -> [(String, String)] {
        let value = response.header("Set-Cookie")?.split(separator: ";").first.map(String.init) ?? ""
        return [("Cookie", value)]
    }

    @Test("asked on the page, the button pairs: a secret cookie (HttpOnly, SameSite=Strict, 30 days), then a token")
    func buttonPairs() throws {
        let pairings = PairedBrowsers(folder: nil)
        let recorder = PairingRecorder()
        let undo = UndoRecorder()
        let server = try makeServer(undo: undo, pairings: pairings, pair: { recorder.record($0) })
        let before = try get(server, "/api/pairing")
        #expect(before.status == 200)
        #expect(before.body == "{\"pairing\":\"none\"}\n")
        let asked = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing", headers: Self.sameOrigin(server.port))
        #expect(asked.status == 202)
        #expect(asked.body == "{\"pairing\":\"waiting\"}\n")
        let setCookie = try #require(asked.header("Set-Cookie"))
        #expect(setCookie.hasPrefix("contactbox_pairing="))
        #expect(setCookie.hasSuffix("; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict"))
        let request = try #require(recorder.requests.first)
        #expect(recorder.requests.count == 1)
        #expect(request.address == "127.0.0.1")
        let cookie = Self.cookie(asked)
        #expect(try get(server, "/api/pairing", headers: cookie).body == "{\"pairing\":\"waiting\"}\n")
        // Waiting is not paired: no change yet.
        let early = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/cancel", headers: cookie + Self.sameOrigin(server.port))
        #expect(early.status == 403)

        pairings.decide(id: request.id, approved: true)
        let paired = try get(server, "/api/pairing", headers: cookie)
        #expect(paired.body.hasPrefix("{\"pairing\":\"paired\",\"token\":\""))
        #expect(paired.body.contains("\"browser\":\"\(request.id)\""))
        #expect(paired.body.contains("\"address\":\"127.0.0.1\""))
        let token = try #require(
            paired.body.split(separator: "\"").drop { $0 != "token" }.dropFirst(2).first.map(String.init))
        #expect(token.count == 32)
        // The cookie alone, a wrong token, a foreign origin: refused, and nothing reaches the daemon.
        let changes: [[(String, String)]] = [
            cookie + Self.sameOrigin(server.port),
            cookie + Self.sameOrigin(server.port) + [("X-ContactBox-Token", String(repeating: "0", count: 32))],
            cookie + [("X-ContactBox-Token", token), ("Origin", "http://evil.example")],
        ]
        for headers in changes {
            let refused = try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/undo/cancel", headers: headers)
            #expect(refused.status == 403)
        }
        #expect(undo.requests.isEmpty)
        let allowed = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/cancel",
            headers: cookie + Self.sameOrigin(server.port) + [("X-ContactBox-Token", token)])
        #expect(allowed.status == 202)
        #expect(undo.requests == [.cancel])
    }

    @Test("a request the button did not answer is refused, and a page elsewhere cannot even ask")
    func refusedAndCrossSite() throws {
        let pairings = PairedBrowsers(folder: nil)
        let recorder = PairingRecorder()
        let server = try makeServer(pairings: pairings, pair: { recorder.record($0) })
        let crossSite = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing", headers: [("Origin", "http://evil.example")])
        #expect(crossSite.status == 403)
        #expect(crossSite.header("Set-Cookie") == nil)
        #expect(recorder.requests.isEmpty)
        let asked = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing", headers: Self.sameOrigin(server.port))
        pairings.decide(id: try #require(recorder.requests.first).id, approved: false)
        #expect(try get(server, "/api/pairing", headers: Self.cookie(asked)).body == "{\"pairing\":\"refused\"}\n")
        // Made-up secrets are nobody.
        let forged = [("Cookie", "contactbox_pairing=" + String(repeating: "a", count: 64))]
        #expect(try get(server, "/api/pairing", headers: forged).body == "{\"pairing\":\"none\"}\n")
    }

    @Test("one request per address; at most 8 wait at once, those that ended unpaired making way")
    func pendingLimit() throws {
        let pairings = PairedBrowsers(folder: nil)
        let first = try #require(pairings.begin(address: "192.168.1.20"))
        // Tapped again on the same phone: the new request replaces the old.
        let second = try #require(pairings.begin(address: "192.168.1.20"))
        #expect(pairings.standing(first.secret) == .unknown)
        #expect(pairings.standing(second.secret) == .waiting)
        var requests = [second.request]
        for host in 1..<PairedBrowsers.pendingLimit {
            requests.append(try #require(pairings.begin(address: "192.168.2.\(host)")).request)
        }
        #expect(pairings.begin(address: "192.168.3.1") == nil)
        pairings.decide(id: requests[3].id, approved: false)
        let late = try #require(pairings.begin(address: "192.168.3.1"))
        #expect(pairings.standing(late.secret) == .waiting)

        // Over HTTP: the table full of waiting requests from elsewhere, the next is told to try later.
        let full = PairedBrowsers(folder: nil)
        for host in 0..<PairedBrowsers.pendingLimit { _ = full.begin(address: "10.0.0.\(host)") }
        let server = try makeServer(pairings: full)
        let refused = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing", headers: Self.sameOrigin(server.port))
        #expect(refused.status == 409)
    }

    @Test("forgotten on the page: that browser can change nothing more")
    func revoke() throws {
        let pairings = PairedBrowsers(folder: nil)
        let undo = UndoRecorder()
        let server = try makeServer(undo: undo, pairings: pairings)
        let headers = pairedHeaders(pairings, port: server.port)
        let id = try #require(pairings.list().first?.id)
        let other = pairedHeaders(pairings, port: server.port)
        let forget = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing/forget?id=\(id)", headers: other)
        #expect(forget.status == 200)
        #expect(!forget.body.contains(id))
        #expect(pairings.list().count == 1)
        let refused = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/cancel", headers: headers)
        #expect(refused.status == 403)
        let unknown = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/pairing/forget?id=ffffffff", headers: other)
        #expect(unknown.status == 400)
    }

    @Test("kept in the state folder as hashes (0600), read again after a restart, forgotten after 30 days unused")
    func persisted() throws {
        let folder = try TemporaryDirectory()
        let clock = WallClock()
        let pairings = PairedBrowsers(folder: folder.path, wallClock: { clock.now })
        let (secret, request) = try #require(pairings.begin(address: "192.168.1.20"))
        pairings.decide(id: request.id, approved: true)
        let path = folder.file("pairings")
        let text = String(decoding: try SmallFile.read(path, limit: 65_536), as: UTF8.self)
        #expect(!text.contains(secret.text))
        #expect(text.contains("browser \(request.id) \(PairingSecret.hex(secret.digest)) 1800000000 1800000000 "))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let restarted = PairedBrowsers(folder: folder.path, wallClock: { clock.now })
        guard case .paired(let browser) = restarted.standing(secret) else {
            Issue.record("not paired after a restart")
            return
        }
        #expect(browser.address == "192.168.1.20")
        // Used on day 29: the 30 days start again from then.
        clock.advance(days: 29)
        #expect(restarted.standing(secret) != .unknown)
        clock.advance(days: 29)
        #expect(restarted.standing(secret) != .unknown)
        clock.advance(days: 30)
        #expect(restarted.standing(secret) == .unknown)
        #expect(PairedBrowsers(folder: folder.path, wallClock: { clock.now }).list().isEmpty)
    }

    @Test("`contactbox pair --forget-all` from another process: the running server notices at once")
    func forgetAllFromOutside() throws {
        let folder = try TemporaryDirectory()
        let pairings = PairedBrowsers(folder: folder.path)
        let (secret, request) = try #require(pairings.begin(address: "127.0.0.1"))
        pairings.decide(id: request.id, approved: true)
        #expect(pairings.list().count == 1)
        try PairedBrowsers.forgetAll(folder: folder.path)
        #expect(pairings.standing(secret) == .unknown)
        #expect(pairings.list().isEmpty)
    }

    @Test("the one-time code pairs once; wrong five times, or after 10 minutes, it is void")
    func code() throws {
        let folder = try TemporaryDirectory()
        let clock = WallClock()
        let pairings = PairedBrowsers(folder: folder.path, wallClock: { clock.now })
        let server = try makeServer(pairings: pairings)
        let code = try PairedBrowsers.issueCode(folder: folder.path, now: clock.now)
        #expect(code.count == 9 && code.dropFirst(4).first == "-")
        func post(_ typed: String) throws -> HTTPTestResponse {
            try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/pairing?code=\(typed)",
                headers: Self.sameOrigin(server.port))
        }
        let wrong = code.first == "1" ? "2" + code.dropFirst() : "1" + code.dropFirst()
        for _ in 0..<4 { #expect(try post(wrong).status == 403) }
        let right = try post(code.replacing("-", with: ""))
        #expect(right.status == 200)
        #expect(right.body.hasPrefix("{\"pairing\":\"paired\""))
        #expect(try get(server, "/api/pairing", headers: Self.cookie(right)).body.contains("\"paired\""))
        #expect(try post(code).status == 403)

        let second = try PairedBrowsers.issueCode(folder: folder.path, now: clock.now)
        let miss = second.first == "1" ? "2" + second.dropFirst() : "1" + second.dropFirst()
        for _ in 0..<5 { #expect(try post(miss).status == 403) }
        #expect(try post(second).status == 403)

        let third = try PairedBrowsers.issueCode(folder: folder.path, now: clock.now - 601)
        #expect(try post(third).status == 403)
        #expect(pairings.list().count == 1)
    }
}

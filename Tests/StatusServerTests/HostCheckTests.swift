import Synchronization
import TestSupport
import Testing

@testable import StatusServer

@Suite("The Host check (DNS rebinding)")
struct HostCheckTests {
    @Test(
        "Host headers are read as name or address, port dropped, case and a trailing dot ignored",
        arguments: [
            ("Box.Local", "box.local"), ("box.local.:8080", "box.local"), ("localhost:80", "localhost"),
            ("192.168.1.20", "192.168.1.20"), ("192.168.1.20:8080", "192.168.1.20"), ("[::1]:8080", "::1"),
            ("[0:0:0:0:0:0:0:1]", "::1"), ("[FE80::1%25eth0]:8080", "fe80::1"),
            ("[::ffff:192.168.1.20]", "192.168.1.20"), ("my_box", "my_box"),
        ])
    func readHost(header: String, host: String) {
        #expect(RequestGuard.hostOfHeader(header) == host)
    }

    @Test(
        "Malformed Host headers are read as no host at all",
        arguments: [
            "", ":8080", "box:", "box:80x", "box:123456", "[::1", "[::1]x", "[box]", "::1", "a b", "box/x",
            "user@box", "box..local", ".box", "évil.example", "box:80:80", String(repeating: "a", count: 254),
        ])
    func malformedHost(header: String) {
        #expect(RequestGuard.hostOfHeader(header) == nil)
    }

    @Test("checkHost: known names pass, others are refused, a missing Host only passes for HTTP/1.0")
    func checkHost() {
        let allowed: Set<String> = ["box.local", "192.168.1.20", "::1"]
        #expect(RequestGuard.checkHost("BOX.local.:9000", httpVersion: "HTTP/1.1", allowed: allowed) == .allowed)
        #expect(RequestGuard.checkHost("[::1]", httpVersion: "HTTP/1.1", allowed: allowed) == .allowed)
        #expect(RequestGuard.checkHost("evil.example:8080", httpVersion: "HTTP/1.1", allowed: allowed) == .refused)
        #expect(RequestGuard.checkHost("192.168.1.21", httpVersion: "HTTP/1.1", allowed: allowed) == .refused)
        #expect(RequestGuard.checkHost("box.local x", httpVersion: "HTTP/1.1", allowed: allowed) == .refused)
        #expect(RequestGuard.checkHost(nil, httpVersion: "HTTP/1.1", allowed: allowed) == .missing)
        #expect(RequestGuard.checkHost(nil, httpVersion: "HTTP/1.0", allowed: allowed) == .allowed)
    }

    @Test("The box's own names, the configured ones and its interfaces; wildcards are no name")
    func allowedSet() {
        let hosts = AllowedHosts(
            configured: ["0.0.0.0", "::", "Contacts.Example.org.", "10.0.0.9"],
            systemHosts: { ["192.168.1.20", "box"] },
            clock: { 0 })
        for header in ["localhost", "contactbox.local", "contacts.example.org", "10.0.0.9:80", "192.168.1.20", "box"] {
            #expect(hosts.check(header, httpVersion: "HTTP/1.1") == .allowed, "\(header)")
        }
        for header in ["0.0.0.0", "[::]", "evil.example", "box.evil.example"] {
            #expect(hosts.check(header, httpVersion: "HTTP/1.1") == .refused, "\(header)")
        }
    }

    @Test("Interfaces are read again on a miss, at most once every 5 s: a new DHCP address is answered")
    func refresh() {
        let reads = Mutex(0)
        let addresses = Mutex<Set<String>>(["192.168.1.20"])
        let clock = ManualClock()
        let hosts = AllowedHosts(
            configured: [],
            systemHosts: {
                reads.withLock { $0 += 1 }
                return addresses.withLock { $0 }
            }, clock: { clock.now })
        // Known names never read the interfaces.
        #expect(hosts.check("localhost", httpVersion: "HTTP/1.1") == .allowed)
        #expect(reads.withLock { $0 } == 0)
        // The first miss reads them; further misses within 5 s do not, however many.
        #expect(hosts.check("192.168.1.20", httpVersion: "HTTP/1.1") == .allowed)
        #expect(reads.withLock { $0 } == 1)
        addresses.withLock { $0 = ["192.168.1.77"] }
        for _ in 0..<100 { #expect(hosts.check("192.168.1.77", httpVersion: "HTTP/1.1") == .refused) }
        #expect(reads.withLock { $0 } == 1)
        clock.advance(AllowedHosts.refreshAfter)
        #expect(hosts.check("192.168.1.77", httpVersion: "HTTP/1.1") == .allowed)
        #expect(reads.withLock { $0 } == 2)
        // The old address has gone with its lease.
        clock.advance(AllowedHosts.refreshAfter)
        #expect(hosts.check("192.168.1.20", httpVersion: "HTTP/1.1") == .refused)
    }

    @Test("The box's name is allowed once set, with and without .local, and no longer once changed")
    func boxName() {
        let hosts = AllowedHosts(configured: [], systemHosts: { ["192.168.1.20", "contactbox"] }, clock: { 0 })
        #expect(hosts.check("kitchen.local", httpVersion: "HTTP/1.1") == .refused)
        hosts.setBoxName("Kitchen")
        for header in ["kitchen.local", "KITCHEN.local.:8080", "kitchen", "192.168.1.20", "contactbox"] {
            #expect(hosts.check(header, httpVersion: "HTTP/1.1") == .allowed, "\(header)")
        }
        hosts.setBoxName("hall")
        #expect(hosts.check("kitchen.local", httpVersion: "HTTP/1.1") == .refused)
        #expect(hosts.check("hall.local", httpVersion: "HTTP/1.1") == .allowed)
        hosts.setBoxName(nil)
        #expect(hosts.check("hall.local", httpVersion: "HTTP/1.1") == .refused)
        #expect(hosts.check("192.168.1.20", httpVersion: "HTTP/1.1") == .allowed)
    }

    @Test("A running server answers Host: kitchen.local once the daemon gives it the name, without a restart")
    func boxNameLive() throws {
        let server = try makeServer()
        #expect(try send(server, "GET", "/api/status", host: "kitchen.local:\(server.port)").status == 421)
        server.setBoxName("kitchen")
        #expect(try send(server, "GET", "/api/status", host: "kitchen.local:\(server.port)").status == 200)
        #expect(try send(server, "GET", "/", host: "kitchen").status == 200)
    }

    @Test("This machine's own names and addresses include loopback")
    func systemHosts() {
        let hosts = AllowedHosts.readSystemHosts()
        #expect(hosts.contains("127.0.0.1"))
        #expect(hosts.contains { $0.hasSuffix(".local") })
    }

    /// A request written by hand, so that the Host header (or its absence) is exactly what the test says.
    private func send(
        _ server: StatusServer, _ method: String, _ path: String, host: String?, version: String = "HTTP/1.1",
        headers: String = ""
    ) throws -> HTTPTestResponse {
        var head = "\(method) \(path) \(version)\r\n"
        if let host { head += "Host: \(host)\r\n" }
        head += headers + "Connection: close\r\n" + (method == "POST" ? "Content-Length: 0\r\n" : "") + "\r\n"
        return try HTTPTestClient.parse(HTTPTestClient.exchange(port: server.port, bytes: Array(head.utf8)))
    }

    @Test("A foreign Host gets 421 on every route, and POST /api/sync does not sync")
    func foreignHostRefused() throws {
        let recorder = SyncRecorder()
        let records = LogRecords()
        let server = try makeServer(recorder: recorder, records: records)
        for (method, path) in [("GET", "/"), ("GET", "/api/status"), ("GET", "/metrics"), ("POST", "/api/sync")] {
            for host in ["evil.example:\(server.port)", "evil.example", "192.168.1.99", "127.0.0.1.nip.io"] {
                let response = try send(server, method, path, host: host)
                #expect(response.status == 421, "\(method) \(path) \(host)")
                #expect(response.body.contains("allowed_hosts"))
                #expect(!response.body.contains("812"))
                #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            }
        }
        #expect(recorder.count == 0)
        #expect(
            records.lines.contains {
                $0.hasPrefix("info Status request for another host refused http.host=evil.example")
            })
    }

    @Test("The box's names and addresses, with any port or none, and allowed_hosts are answered")
    func ownHostsAnswered() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(allowedHosts: ["contacts.example.org"], recorder: recorder)
        for host in [
            "127.0.0.1:\(server.port)", "127.0.0.1", "[::1]:\(server.port)", "localhost", "LocalHost.:8080",
            "contactbox.local:80", "box", "box.local:\(server.port)", "Contacts.Example.ORG",
        ] {
            #expect(try send(server, "GET", "/api/status", host: host).status == 200, "\(host)")
        }
        #expect(try send(server, "POST", "/api/sync", host: "contacts.example.org").status == 202)
        #expect(recorder.count == 1)
    }

    @Test("Without Host: HTTP/1.1 gets 400, HTTP/1.0 (no browser) is answered")
    func missingHost() throws {
        let server = try makeServer()
        #expect(try send(server, "GET", "/api/status", host: nil).status == 400)
        #expect(try send(server, "GET", "/api/status", host: nil, version: "HTTP/1.0").status == 200)
    }

    @Test("The Host check comes before the password: a foreign page learns nothing, not even that one is asked")
    func beforePassword() throws {
        let clock = ManualClock()
        let server = try makeServer(password: "secret", clock: clock)
        let response = try send(server, "GET", "/api/status", host: "evil.example")
        #expect(response.status == 421)
        #expect(response.header("WWW-Authenticate") == nil)
    }

    @Test("An allowed host that is no host name stops the server from starting, with a clear message")
    func invalidAllowedHost() {
        for entry in ["", "box:8080", "http://box", "a b", "*.example.org"] {
            #expect {
                _ = try makeServer(allowedHosts: [entry])
            } throws: { error in
                (error as? StatusServerError)?.message.contains("allowed host \"\(entry)\"") == true
            }
        }
    }
}

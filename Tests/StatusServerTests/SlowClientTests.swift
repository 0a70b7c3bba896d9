import Glibc
import TestSupport
import Testing

@testable import StatusServer

@Suite("Slow clients cannot hold the status page")
struct SlowClientTests {
    /// A connection from `source` that has sent `bytes` and waits, with a receive timeout as a failure guard only.
    private func openSlow(port: UInt16, from source: String, sending bytes: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        try #require(bound == 0 && connected == 0, "bind \(bound), connect \(connected), errno \(errno)")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = send(descriptor, bytes, bytes.utf8.count, Int32(MSG_NOSIGNAL))
        return descriptor
    }

    /// Whether the server has closed `descriptor` (end of stream or reset), without waiting.
    private func isClosed(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    @Test("Sixteen trickling connections from two addresses leave the page to a third, and 4 of each stay open")
    func thirdAddressAnswered() throws {
        let server = try makeServer()
        var slow: [Int32] = []
        defer { for descriptor in slow { close(descriptor) } }
        for source in ["127.0.0.2", "127.0.0.3"] {
            for _ in 1...8 { slow.append(try openSlow(port: server.port, from: source, sending: "G")) }
        }
        let answer = try HTTPTestClient.request(port: server.port, path: "/api/status", from: "127.0.0.4")
        #expect(answer.status == 200)
        // The per-address limit refused 4 of each address's 8 when they arrived, before the third address came.
        #expect(slow.filter { !isClosed($0) }.count == 8)
    }

    @Test("A request head that trickles is closed 10 s after its connection opened, without an answer")
    func headDeadline() throws {
        let clock = ManualClock()
        let server = try makeServer(clock: clock)
        let descriptor = try openSlow(port: server.port, from: "127.0.0.2", sending: "GET /api/status HTTP/1.1\r\n")
        defer { close(descriptor) }
        // The deadline starts when MHD has accepted the connection: wait for that before moving the clock.
        for _ in 0..<1_000 where server.watchedConnections == 0 { usleep(10_000) }
        try #require(server.watchedConnections == 1)
        clock.advance(.seconds(9))
        _ = send(descriptor, "H", 1, Int32(MSG_NOSIGNAL))
        clock.advance(.seconds(1))
        // The watch's next round shuts the connection; the read waits for that (the 30 s timeout only guards).
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        #expect(count == 0 || (count < 0 && errno == ECONNRESET), "read \(count), errno \(errno)")
        #expect(try get(server, "/api/status").status == 200)
    }

    @Test("Deadlines: none passes before 10 s, each request on a connection gets its own, a closed one is forgotten")
    func deadlineBookkeeping() throws {
        let clock = ManualClock()
        let deadlines = RequestDeadlines(clock: { clock.now })
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for end in pair { close(end) } }
        let first = try #require(OpaquePointer(bitPattern: 0x1000))
        let second = try #require(OpaquePointer(bitPattern: 0x2000))
        deadlines.opened(first, descriptor: pair[0])
        deadlines.opened(second, descriptor: 999_999)
        deadlines.closed(second)
        #expect(deadlines.count == 1)
        clock.advance(.seconds(6))
        deadlines.completed(first)
        clock.advance(.seconds(9))
        #expect(deadlines.expire() == 0)
        #expect(!isClosed(pair[1]))
        clock.advance(.seconds(1))
        #expect(deadlines.expire() == 1)
        #expect(isClosed(pair[1]))
        #expect(deadlines.count == 0)
    }
}

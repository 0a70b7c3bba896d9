import Synchronization
import TestSupport
import Testing

@testable import StatusServer

@Suite("Routing")
struct RoutingTests {
    @Test("An unknown path answers 404")
    func notFound() throws {
        let server = try makeServer()
        for path in ["/nowhere", "/api", "/api/status/", "/index.html", "/metrics/x", "//"] {
            #expect(try get(server, path).status == 404, "\(path)")
        }
        #expect(try HTTPTestClient.request(port: server.port, method: "POST", path: "/nowhere").status == 404)
    }

    @Test("A method other than GET or HEAD on a page answers 405 with Allow: GET, HEAD")
    func wrongMethod() throws {
        let server = try makeServer()
        for (method, path) in [("POST", "/"), ("DELETE", "/api/status"), ("PUT", "/metrics"), ("OPTIONS", "/")] {
            let response = try HTTPTestClient.request(port: server.port, method: method, path: path)
            #expect(response.status == 405, "\(method) \(path)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
    }

    @Test("HEAD answers like GET, without the body")
    func head() throws {
        let server = try makeServer()
        for path in ["/", "/api/status", "/metrics"] {
            let full = try get(server, path)
            let head = try HTTPTestClient.request(port: server.port, method: "HEAD", path: path)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Type") == full.header("Content-Type"))
            #expect(head.header("Content-Length") == "\(full.body.utf8.count)")
        }
    }

    @Test("A query string does not change the route")
    func query() throws {
        let server = try makeServer()
        #expect(try get(server, "/api/status?pretty=1").status == 200)
    }

    @Test("Each request takes exactly one snapshot")
    func oneSnapshotPerRequest() throws {
        let taken = Mutex(0)
        let snapshot = makeSnapshot()
        let server = try StatusServer(
            settings: .init(port: 0),
            snapshot: {
                taken.withLock { $0 += 1 }
                return snapshot
            }, syncNow: {}, pairings: PairedBrowsers(folder: nil),
            logger: .init(label: "test") { _ in RecordingLogHandler(records: LogRecords()) })
        for path in ["/", "/api/status", "/metrics"] { _ = try get(server, path) }
        _ = try get(server, "/nowhere")
        #expect(taken.withLock { $0 } == 3)
    }

    @Test("Requests are logged at debug with method, path and status")
    func logging() throws {
        let records = LogRecords()
        let server = try makeServer(records: records)
        _ = try get(server, "/api/status?token=abc")
        #expect(records.lines.contains("debug Status request http.method=GET http.path=/api/status http.status=200"))
        #expect(!records.lines.joined().contains("token=abc"))
    }

    @Test("Connections stay open between requests (HTTP keep-alive)")
    func keepAlive() throws {
        let server = try makeServer()
        let request = "GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let closing = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let answer = try HTTPTestClient.exchange(port: server.port, bytes: Array((request + request + closing).utf8))
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.split(separator: "HTTP/1.1 200 OK", omittingEmptySubsequences: true).count == 3)
    }
}

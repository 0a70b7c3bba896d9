import Logging
import TestSupport
import Testing

@testable import StatusServer

@Suite("Listening and stopping")
struct ListeningTests {
    @Test("Port 0 picks a free port, and the server answers there and logs where")
    func freePort() throws {
        let records = LogRecords()
        let server = try makeServer(records: records)
        #expect(server.port != 0)
        #expect(server.address == "127.0.0.1:\(server.port)")
        #expect(try get(server, "/api/status").status == 200)
        #expect(records.lines.contains("info Status page listening status.address=127.0.0.1:\(server.port)"))
    }

    @Test("A second server on the same port fails with an error naming host and port")
    func portInUse() throws {
        let first = try makeServer()
        let error = #expect(throws: StatusServerError.self) {
            _ = try StatusServer(
                settings: .init(host: "127.0.0.1", port: first.port), snapshot: { makeSnapshot() }, syncNow: {},
                pairings: PairedBrowsers(folder: nil),
                logger: quietLogger())
        }
        #expect(error?.code == .addressInUse)
        #expect(error?.message.contains("127.0.0.1:\(first.port)") == true)
        #expect(error?.message.contains("already in use") == true)
        #expect(try get(first, "/api/status").status == 200)
    }

    @Test("stop() frees the port at once, and stopping twice is harmless")
    func stopFreesPort() throws {
        let first = try makeServer()
        let port = first.port
        first.stop()
        first.stop()
        #expect(throws: HTTPTestFailure.self) { _ = try HTTPTestClient.request(port: port, path: "/") }
        let second = try StatusServer(
            settings: .init(host: "127.0.0.1", port: port), snapshot: { makeSnapshot() }, syncNow: {},
            pairings: PairedBrowsers(folder: nil),
            logger: quietLogger())
        #expect(second.port == port)
        #expect(try get(second, "/api/status").status == 200)
    }

    @Test("Releasing the server stops it")
    func deinitStops() throws {
        var port: UInt16 = 0
        do {
            let server = try makeServer()
            port = server.port
            #expect(try get(server, "/").status == 200)
        }
        #expect(throws: HTTPTestFailure.self) { _ = try HTTPTestClient.request(port: port, path: "/") }
    }

    @Test("A host that is not an IP address, or not one of this machine's, is refused with a clear error")
    func badHosts() {
        let notAnAddress = #expect(throws: StatusServerError.self) {
            _ = try StatusServer(
                settings: .init(host: "status.example", port: 0), snapshot: { makeSnapshot() }, syncNow: {},
                pairings: PairedBrowsers(folder: nil),
                logger: quietLogger())
        }
        #expect(notAnAddress?.code == .invalidAddress)
        #expect(notAnAddress?.message.contains("\"status.example\" is not an IP address") == true)
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a real machine.
        let foreign = #expect(throws: StatusServerError.self) {
            _ = try StatusServer(
                settings: .init(host: "192.0.2.1", port: 8999), snapshot: { makeSnapshot() }, syncNow: {},
                pairings: PairedBrowsers(folder: nil),
                logger: quietLogger())
        }
        #expect(foreign?.code == .addressNotAvailable)
        #expect(foreign?.message.contains("192.0.2.1:8999") == true)
    }

    @Test("Limits that make no sense are refused before anything listens")
    func badLimits() {
        for settings in [
            StatusServer.Settings(port: 0, maxConnections: 0), .init(port: 0, maxConnectionsPerClient: 17),
            .init(port: 0, maxConnectionsPerClient: 0), .init(port: 0, connectionTimeout: .zero),
        ] {
            let error = #expect(throws: StatusServerError.self) {
                _ = try StatusServer(
                    settings: settings, snapshot: { makeSnapshot() }, syncNow: {},
                    pairings: PairedBrowsers(folder: nil), logger: quietLogger())
            }
            #expect(error?.code == .invalidSettings)
        }
    }

    private func quietLogger() -> Logger {
        Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    }
}

import Foundation
import HTTP
import Logging
import Testing

@Suite("Connections, timeouts and concurrency", .timeLimit(.minutes(10)))
struct ConnectionTests {
    @Test("Sequential requests reuse one connection")
    func connectionsAreReused() throws {
        let server = try TestServer()
        let client = try makeClient()
        var connections: Set<Int> = []
        for _ in 0..<5 {
            let (_, body) = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
            connections.insert(try json(body)["connection"] as? Int ?? -1)
        }
        _ = try client.perform(HTTPRequest(method: "PUT", url: server.base + "/echo", body: [1, 2, 3])) { chunk in
            connections.insert((try? json(Array(chunk)))?["connection"] as? Int ?? -2)
        }
        #expect(connections.count == 1)
    }

    // The servers below would answer, or close the connection, only after 60 s: a request that ends any other way
    // than in `.timeout` (a success, a partial body) shows a missing deadline, whatever the machine's load.

    @Test("A server slower than the transfer timeout gives timeout")
    func slowServerTimesOut() throws {
        let server = try TestServer()
        let client = try makeClient(transferTimeout: .seconds(1))
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=60"))
        }
        #expect(error?.kind == .timeout)
    }

    @Test("A request's own low-speed time replaces the client's for it alone, on the same connection")
    func requestLowSpeedTime() throws {
        let server = try TestServer()
        let client = try makeClient(transferTimeout: .seconds(1))
        // A listing the server computes for 2 s before its first byte: far inside its own 60 s.
        let patient = HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=2", lowSpeedTime: .seconds(60))
        let (response, _) = try client.send(patient)
        #expect(response.status == 200)
        // The next request on that reused handle has the client's 1 s again.
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=60"))
        }
        #expect(error?.kind == .timeout)
    }

    @Test(
        "A server that trickles bytes, or promises more than it sends, gives timeout",
        arguments: ["/trickle?n=600&interval=0.1", "/trickle?n=10&interval=0&claim=100000&hold=60"])
    func tricklingServerTimesOut(path: String) throws {
        let server = try TestServer()
        let client = try makeClient(transferTimeout: .seconds(1))
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + path))
        }
        #expect(error?.kind == .timeout)
    }

    @Test("A deadline caps a request its own limits would let trickle on, and one past it is not sent")
    func deadlineCapsTheRequest() throws {
        let server = try TestServer()
        var configuration = HTTPConfiguration(connectTimeout: .seconds(5))
        // A byte a second stays well within a 240 s low-speed window and the 5-minute total: the deadline ends it.
        configuration.deadline = .now + .seconds(2)
        let client = try HTTPClient(configuration, logger: Logger(label: "HTTPTests"))
        let slow = HTTPRequest(
            method: "GET", url: server.base + "/trickle?n=600&interval=1", lowSpeedTime: .seconds(240))
        let error = #expect(throws: HTTPError.self) { _ = try client.send(slow) }
        #expect(error?.kind == .timeout)

        let before = try server.stats().byMethod["GET"] ?? 0
        let late = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=0"))
        }
        #expect(late?.kind == .timeout)
        #expect(try server.stats().byMethod["GET"] ?? 0 == before + 1)  // the second look at the stats alone
    }

    @Test("A closed port gives connect")
    func refusedConnection() throws {
        let client = try makeClient()
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:1/"))
        }
        #expect(error?.kind == .connect)
    }

    @Test("An unknown host gives dns")
    func unknownHost() throws {
        let client = try makeClient()
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: "http://no-such-host.invalid/"))
        }
        #expect(error?.kind == .dns)
    }

    @Test("sendAll runs up to maxConcurrent requests at once and reports every result")
    func sendAllRunsConcurrently() throws {
        let server = try TestServer()
        let client = try makeClient(transferTimeout: .seconds(120), maxConcurrent: 4)
        // As in a sync, a first request tells libcurl the server speaks HTTP/1.1; until then, CURLOPT_PIPEWAIT has
        // the others wait for the first connection in case it can multiplex (HTTP/2).
        _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        // Each request is answered only once four are in flight together (503 otherwise): all 200s prove four at
        // once, and the server's peak proves never more.
        let requests = (0..<8).map { index in
            HTTPRequest(method: "GET", url: server.base + "/gather?n=4&i=\(index)")
        }
        var seen: [Int: String] = [:]
        var connections: Set<Int> = []
        try client.sendAll(requests) { index, result in
            let (response, body) = try result.get()
            #expect(response.status == 200)
            let echo = try json(body)
            seen[index] = echo["path"] as? String
            connections.insert(echo["connection"] as? Int ?? -1)
        }
        #expect(try server.stats().peakGathered == 4)
        #expect(seen.count == 8)
        for index in 0..<8 {
            #expect(seen[index]?.hasSuffix("i=\(index)") == true)
        }
        #expect(connections.count <= 4)
    }

    @Test("sendAll reports a failed request as its result and goes on with the others")
    func sendAllReportsFailures() throws {
        let server = try TestServer()
        let client = try makeClient()
        let requests = [
            HTTPRequest(method: "GET", url: server.base + "/echo"),
            HTTPRequest(method: "GET", url: "http://127.0.0.1:1/"),
            HTTPRequest(method: "GET", url: server.base + "/bytes?n=2000"),
        ]
        var outcomes: [Int: String] = [:]
        try client.sendAll(requests, maxBody: 1000) { index, result in
            switch result {
            case .success(let (response, _)): outcomes[index] = "\(response.status)"
            case .failure(let error): outcomes[index] = "\(error.kind)"
            }
        }
        #expect(outcomes == [0: "200", 1: "connect", 2: "tooLarge"])
    }

    struct Enough: Error {}

    @Test("A throw from the sendAll completion stops the rest and is rethrown")
    func sendAllCompletionThrows() throws {
        let server = try TestServer()
        let client = try makeClient(maxConcurrent: 2)
        let requests = (0..<6).map { _ in HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=0.2") }
        var calls = 0
        #expect(throws: Enough.self) {
            try client.sendAll(requests) { _, _ in
                calls += 1
                throw Enough()
            }
        }
        #expect(calls == 1)
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        #expect(response.status == 200)
    }

    @Test("A started request stays in flight while other requests run, and finish reads it whole")
    func startedRequestOverlapsOthers() throws {
        let server = try TestServer()
        let client = try makeClient(transferTimeout: .seconds(120), maxConcurrent: 4)
        _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        var startedBody: [UInt8] = []
        let pending = client.start(HTTPRequest(method: "GET", url: server.base + "/gather?n=2&i=0")) { chunk in
            startedBody += chunk
        }
        // Each is answered only once both are in /gather together: the started one is at the server meanwhile.
        let (response, body) = try client.send(HTTPRequest(method: "GET", url: server.base + "/gather?n=2&i=1"))
        #expect(response.status == 200)
        #expect((try json(body)["path"] as? String)?.hasSuffix("i=1") == true)
        #expect(try client.finish(pending).status == 200)
        #expect((try json(startedBody)["path"] as? String)?.hasSuffix("i=0") == true)
        #expect(try server.stats().peakGathered == 2)
    }

    @Test("A started request is at the server before it is finished, also on a new connection")
    func startedRequestIsSent() throws {
        let server = try TestServer()
        let client = try makeClient()  // no connection open yet: start must wait for the new one
        let pending = client.start(
            HTTPRequest(method: "REPORT", url: server.base + "/echo", body: Array("<query/>".utf8))
        ) { _ in }
        let deadline = ContinuousClock.now + .seconds(5)
        var reports = 0
        while reports == 0, ContinuousClock.now < deadline {
            reports = try server.stats().byMethod["REPORT"] ?? 0
        }
        #expect(reports == 1)
        #expect(try client.finish(pending).status == 200)
    }

    @Test("A started request can be cancelled, and the client goes on")
    func startedRequestCancelled() throws {
        let server = try TestServer()
        let client = try makeClient()
        var delivered = 0
        let pending = client.start(HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=30")) { chunk in
            delivered += chunk.count
        }
        client.cancel(pending)
        let error = #expect(throws: HTTPError.self) { _ = try client.finish(pending) }
        #expect(error?.kind == .aborted)
        #expect(delivered == 0)
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        #expect(response.status == 200)
    }

    @Test("A started body waits until finish: awaitHead returns with the head in, a request sent meanwhile runs")
    func awaitHeadHoldsBody() throws {
        let server = try TestServer()
        let client = try makeClient()
        var delivered: [UInt8] = []
        let pending = client.start(HTTPRequest(method: "GET", url: server.base + "/bytes?n=300000&chunk=300000")) {
            delivered += $0
        }
        client.awaitHead(pending)
        #expect(delivered.count == 0)
        // The held transfer keeps its connection: the next request goes out on another one, and completes.
        var echoed: [UInt8] = []
        let next = client.start(HTTPRequest(method: "GET", url: server.base + "/echo")) { echoed += $0 }
        #expect(try client.finish(next).status == 200)
        #expect(delivered.count == 0)
        #expect((try json(echoed)["path"] as? String) == "/echo")
        #expect(try client.finish(pending).status == 200)
        #expect(delivered.count == 300_000)
        #expect(delivered.allSatisfy { $0 == UInt8(ascii: "x") })
    }

    @Test("A request held by awaitHead can be cancelled, and its handle serves the next request whole")
    func heldRequestCancelled() throws {
        let server = try TestServer()
        let client = try makeClient(maxConcurrent: 1)
        var delivered = 0
        let pending = client.start(HTTPRequest(method: "GET", url: server.base + "/bytes?n=200000")) {
            delivered += $0.count
        }
        client.awaitHead(pending)
        client.cancel(pending)
        #expect(delivered == 0)
        #expect(throws: HTTPError.self) { _ = try client.finish(pending) }
        var body = 0
        let response = try client.perform(HTTPRequest(method: "GET", url: server.base + "/bytes?n=200000")) {
            body += $0.count
        }
        #expect(response.status == 200)
        #expect(body == 200_000)
    }

    @Test("awaitHead of a request that fails returns, and finish throws its error")
    func awaitHeadOfFailure() throws {
        let client = try makeClient()
        let pending = client.start(HTTPRequest(method: "GET", url: "http://127.0.0.1:1/")) { _ in }
        client.awaitHead(pending)
        let error = #expect(throws: HTTPError.self) { _ = try client.finish(pending) }
        #expect(error?.kind == .connect)
    }

    @Test("requestCounts counts requests by method")
    func requestCounts() throws {
        let server = try TestServer()
        let client = try makeClient()
        for method in ["GET", "GET", "PUT", "PROPFIND", "REPORT", "DELETE"] {
            _ = try client.send(HTTPRequest(method: method, url: server.base + "/echo"))
        }
        #expect(client.requestCounts == ["GET": 2, "PUT": 1, "PROPFIND": 1, "REPORT": 1, "DELETE": 1])
        #expect(try server.stats().byMethod == ["GET": 3, "PUT": 1, "PROPFIND": 1, "REPORT": 1, "DELETE": 1])
    }
}

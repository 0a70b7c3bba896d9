import Foundation
import HTTP
import SystemSupport
import TestSupport
import Testing

@Suite("Requests and bodies", .timeLimit(.minutes(10)))
struct HTTPClientTests {
    @Test("GET, PUT and PROPFIND send their method, headers and body, and get the echo back")
    func roundTrips() throws {
        let server = try TestServer()
        let client = try makeClient()
        for method in ["GET", "PUT", "PROPFIND"] {
            let body = Array("<body of \(method)/>".utf8)
            let (response, bytes) = try client.send(
                HTTPRequest(
                    method: method, url: server.base + "/echo",
                    headers: [HTTPHeader("Depth", "1"), HTTPHeader("Content-Type", "text/xml")], body: body))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            #expect(response.url == server.base + "/echo")
            let echo = try json(bytes)
            #expect(echo["method"] as? String == method)
            #expect(echo["body"] as? String == String(decoding: body, as: UTF8.self))
            let headers = try echoedHeaders(bytes)
            #expect(headers["depth"] == "1")
            #expect(headers["content-type"] == "text/xml")
            #expect(headers["user-agent"] == "ContactBox/test")
        }
    }

    @Test("DELETE and HEAD without a body work")
    func bodilessMethods() throws {
        let server = try TestServer()
        let client = try makeClient()
        let (deleted, bytes) = try client.send(HTTPRequest(method: "DELETE", url: server.base + "/echo"))
        #expect(deleted.status == 200)
        #expect(try json(bytes)["method"] as? String == "DELETE")
        let (head, headBytes) = try client.send(HTTPRequest(method: "HEAD", url: server.base + "/echo"))
        #expect(head.status == 200)
        #expect(headBytes.isEmpty)
    }

    @Test("A 20 MB body arrives in small chunks, never accumulated")
    func streamsLargeBodies() throws {
        let server = try TestServer()
        let client = try makeClient()
        let size = 20 << 20
        var total = 0
        var chunks = 0
        var largest = 0
        let response = try client.perform(HTTPRequest(method: "GET", url: server.base + "/bytes?n=\(size)")) { chunk in
            total += chunk.count
            chunks += 1
            largest = max(largest, chunk.count)
        }
        #expect(response.status == 200)
        #expect(total == size)
        #expect(chunks >= size / (64 << 10))
        #expect(largest <= 64 << 10)
    }

    struct Stop: Error {}

    @Test("A throw from the body handler stops the transfer and is rethrown")
    func bodyHandlerAborts() throws {
        let server = try TestServer()
        let client = try makeClient()
        var received = 0
        #expect(throws: Stop.self) {
            _ = try client.perform(HTTPRequest(method: "GET", url: server.base + "/bytes?n=\(20 << 20)")) { chunk in
                received += chunk.count
                if received > 100_000 { throw Stop() }
            }
        }
        #expect(received < 1 << 20)
        // The client stays usable.
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        #expect(response.status == 200)
    }

    @Test("send fails with tooLarge past maxBody, and accepts a body of exactly maxBody")
    func sendLimitsBodies() throws {
        let server = try TestServer()
        let client = try makeClient()
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/bytes?n=1001"), maxBody: 1000)
        }
        #expect(error?.kind == .tooLarge)
        let (_, bytes) = try client.send(HTTPRequest(method: "GET", url: server.base + "/bytes?n=1000"), maxBody: 1000)
        #expect(bytes.count == 1000)
    }

    @Test("A 429 comes back as a response whose Retry-After the caller can read")
    func retryAfterIsExposed() throws {
        let server = try TestServer()
        let client = try makeClient()
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/too-many-requests"))
        #expect(response.status == 429)
        #expect(response.header("retry-after") == "7")
        #expect(response.header("RETRY-AFTER") == "7")
    }

    @Test("Small bodies go without Expect: 100-continue, bodies over 1 MiB with it")
    func expectContinueOnlyForLargeBodies() throws {
        let server = try TestServer()
        let client = try makeClient()
        let (_, small) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/echo", body: Array(repeating: 65, count: 1000)))
        #expect(try echoedHeaders(small)["expect"] == nil)
        let (_, large) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/echo", body: Array(repeating: 65, count: 2 << 20)),
            maxBody: 8 << 20)
        #expect(try echoedHeaders(large)["expect"]?.lowercased() == "100-continue")
        #expect((try json(large)["body"] as? String)?.count == 2 << 20)
    }

    @Test("A spooled body of several MB goes out from its file with its length, and arrives byte for byte")
    func spooledBody() throws {
        let server = try TestServer()
        let client = try makeClient()
        let folder = try TemporaryDirectory(prefix: "contactbox-spool")
        let file = try SpoolFile(directory: folder.path)
        // Numbered lines: a piece sent twice, left out or out of order shows.
        var sent: [UInt8] = []
        var line = 0
        while sent.count < 5 << 20 {
            sent += Array("line \(line) of a spooled body\n".utf8)
            line += 1
        }
        try file.append(sent)
        let (response, echoed) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/echo", body: .spooled(file)), maxBody: 32 << 20)
        #expect(response.status == 200)
        #expect(try echoedHeaders(echoed)["content-length"] == "\(sent.count)")
        #expect(try echoedHeaders(echoed)["expect"]?.lowercased() == "100-continue")
        let body = try #require(try json(echoed)["body"] as? String)
        #expect(Array(body.utf8) == sent)
    }

    @Test("A header value with a line break is refused, not sent")
    func headerInjectionIsRefused() throws {
        let server = try TestServer()
        let client = try makeClient()
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(
                HTTPRequest(method: "GET", url: server.base + "/echo", headers: [HTTPHeader("X-A", "b\r\nX-Evil: 1")]))
        }
        #expect(error?.kind == .other)
        #expect(try server.stats().byMethod["GET"] ?? 0 == 1)  // only the stats request itself
    }
}

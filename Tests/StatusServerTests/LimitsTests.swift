import TestSupport
import Testing

@testable import StatusServer

@Suite("Request limits")
struct LimitsTests {
    @Test("A request head larger than the connection's memory is refused, and the server keeps serving")
    func oversizeHeader() throws {
        let server = try makeServer()
        let big = String(repeating: "a", count: 40 * 1024)
        let request = "GET /api/status HTTP/1.1\r\nHost: localhost\r\nX-Big: \(big)\r\nConnection: close\r\n\r\n"
        let answer = try HTTPTestClient.exchange(port: server.port, bytes: Array(request.utf8))
        // MHD answers 431 (or 413 in older releases); a reset before the answer is read refuses it as well.
        if !answer.isEmpty {
            let response = try HTTPTestClient.parse(answer)
            #expect([413, 431].contains(response.status), "status \(response.status)")
        }
        #expect(try get(server, "/api/status").status == 200)
    }

    @Test("A POST body announced over 1 KiB is refused with 413 and does not sync")
    func oversizeBody() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let body = String(repeating: "x", count: 1025)
        let response = try HTTPTestClient.request(port: server.port, method: "POST", path: "/api/sync", body: body)
        #expect(response.status == 413)
        #expect(recorder.count == 0)
    }

    @Test("A chunked body that grows past 1 KiB closes the connection without syncing")
    func oversizeChunkedBody() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let chunk = String(repeating: "x", count: 600)
        let request =
            "POST /api/sync HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
        let answer = try HTTPTestClient.exchange(port: server.port, bytes: Array(request.utf8))
        #expect(!String(decoding: answer, as: UTF8.self).contains(" 202 "))
        #expect(recorder.count == 0)
    }

    @Test("A small body is accepted and ignored")
    func smallBody() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let response = try HTTPTestClient.request(port: server.port, method: "POST", path: "/api/sync", body: "now=1")
        #expect(response.status == 202)
        #expect(recorder.count == 1)
    }
}

import TestSupport
import Testing

@testable import StatusServer

@Suite("Requests whose body length is ambiguous are refused")
struct SmugglingTests {
    private func framing(_ headers: [(String, String)]) -> RequestFraming {
        var framing = RequestFraming()
        for (name, value) in headers { framing.add(name: name, value: value) }
        return framing
    }

    @Test("One Content-Length, or chunked alone, or neither, is unambiguous")
    func plainFraming() {
        #expect(framing([]).isUnambiguous)
        #expect(framing([("Content-Length", "12")]).isUnambiguous)
        #expect(framing([("Content-Length", "5"), ("content-length", " 5 ")]).isUnambiguous)
        #expect(framing([("Content-Length", "5, 5")]).isUnambiguous)
        #expect(framing([("Transfer-Encoding", "Chunked")]).isUnambiguous)
    }

    @Test("Both headers, differing lengths, a length that is no number or another coding are ambiguous")
    func ambiguousFraming() {
        #expect(!framing([("Content-Length", "5"), ("Transfer-Encoding", "chunked")]).isUnambiguous)
        #expect(!framing([("Content-Length", "5"), ("Content-Length", "6")]).isUnambiguous)
        #expect(!framing([("Content-Length", "5, 6")]).isUnambiguous)
        #expect(!framing([("Content-Length", "5,")]).isUnambiguous)
        #expect(!framing([("Content-Length", "-1")]).isUnambiguous)
        #expect(!framing([("Content-Length", "0x10")]).isUnambiguous)
        #expect(!framing([("Transfer-Encoding", "gzip, chunked")]).isUnambiguous)
        #expect(!framing([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]).isUnambiguous)
    }

    /// Sends `first` and a hidden second request in one write, reads until the server closes, and returns every
    /// status line the server sent.
    private func statusLines(_ server: StatusServer, first: String) throws -> [String] {
        let hidden = "GET /api/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let answer = try HTTPTestClient.exchange(port: server.port, bytes: Array((first + hidden).utf8))
        let text = String(decoding: answer, as: UTF8.self)
        // Bodies end in "\n" alone, heads in "\r\n" (one Character): a response starts on a line of its own either way.
        return text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("HTTP/1.") }.map(String.init)
    }

    @Test(
        "A request with an ambiguous length gets one 400 and a close; the request behind it is never answered",
        arguments: [
            "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
            "Content-Length: 0\r\nContent-Length: 2\r\n\r\nxx",
            "Content-Length: 0, 2\r\n\r\nxx",
        ])
    func pipelinedRequestNotAnswered(framingHeaders: String) throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let first = "POST /api/sync HTTP/1.1\r\nHost: localhost\r\n" + framingHeaders
        let lines = try statusLines(server, first: first)
        #expect(lines.first == "HTTP/1.1 400 Bad Request", "\(lines)")
        #expect(lines.allSatisfy { $0 == "HTTP/1.1 400 Bad Request" }, "\(lines)")
        // A `Content-Length` list MHD 0.9.75 refuses itself, before our handler sees the request, and it writes its
        // error's head twice; one 400 is all the other cases send.
        if !framingHeaders.hasPrefix("Content-Length: 0, 2") { #expect(lines.count == 1, "\(lines)") }
        #expect(recorder.count == 0)
    }

    @Test("Two pipelined requests with plain lengths are both answered")
    func plainPipelineAnswered() throws {
        let server = try makeServer()
        let first = "GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let lines = try statusLines(server, first: first)
        #expect(lines == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
    }
}

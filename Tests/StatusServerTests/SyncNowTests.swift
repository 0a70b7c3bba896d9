import TestSupport
import Testing

@testable import StatusServer

@Suite("Sync now")
struct SyncNowTests {
    @Test("POST /api/sync calls syncNow once and answers 202 with a small JSON")
    func requestsSync() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let response = try HTTPTestClient.request(port: server.port, method: "POST", path: "/api/sync")
        #expect(response.status == 202)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.body == "{\"requested\":true}\n")
        #expect(recorder.count == 1)
    }

    @Test("The page's own POST, from the same origin, is accepted")
    func sameOrigin() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        let response = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/sync",
            headers: [("Origin", "http://127.0.0.1:\(server.port)"), ("Sec-Fetch-Site", "same-origin")])
        #expect(response.status == 202)
        #expect(recorder.count == 1)
    }

    @Test("A POST from another web site is refused with 403 and does not sync")
    func crossOrigin() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        for headers in [
            [("Origin", "http://evil.example")], [("Origin", "http://127.0.0.1:\(server.port).evil.example")],
            [("Origin", "null")], [("Sec-Fetch-Site", "cross-site")],
            [("Origin", "http://127.0.0.1:\(server.port)"), ("Sec-Fetch-Site", "cross-site")],
        ] {
            let response = try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/sync", headers: headers)
            #expect(response.status == 403, "\(headers)")
        }
        #expect(recorder.count == 0)
    }

    @Test("GET and other methods on /api/sync answer 405 with Allow: POST, and do not sync")
    func onlyPost() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(recorder: recorder)
        for method in ["GET", "HEAD", "PUT", "DELETE"] {
            let response = try HTTPTestClient.request(port: server.port, method: method, path: "/api/sync")
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "POST")
        }
        #expect(recorder.count == 0)
    }

    @Test("The origin rule: same host by http or https, case aside; opaque origins and missing hosts refused")
    func originRule() {
        #expect(RequestGuard.isSameOrigin(origin: nil, host: "box:8080", fetchSite: nil))
        #expect(RequestGuard.isSameOrigin(origin: "http://box:8080", host: "box:8080", fetchSite: "same-origin"))
        #expect(RequestGuard.isSameOrigin(origin: "https://Box.local", host: "box.local", fetchSite: nil))
        #expect(RequestGuard.isSameOrigin(origin: nil, host: nil, fetchSite: "none"))
        #expect(!RequestGuard.isSameOrigin(origin: "http://box:8081", host: "box:8080", fetchSite: nil))
        #expect(!RequestGuard.isSameOrigin(origin: "http://box:8080", host: nil, fetchSite: nil))
        #expect(!RequestGuard.isSameOrigin(origin: "null", host: "box", fetchSite: nil))
        #expect(!RequestGuard.isSameOrigin(origin: nil, host: "box", fetchSite: "Cross-Site"))
    }
}

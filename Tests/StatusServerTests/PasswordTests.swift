import TestSupport
import Testing

@testable import StatusServer

@Suite("The optional password")
struct PasswordTests {
    static let password = "correct horse: battery"

    @Test("Without credentials every route answers 401 with a Basic challenge for realm ContactBox")
    func challenge() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(password: Self.password, recorder: recorder)
        for (method, path) in [
            ("GET", "/"), ("GET", "/api/status"), ("GET", "/metrics"), ("POST", "/api/sync"),
            ("GET", "/nowhere"),
        ] {
            let response = try HTTPTestClient.request(port: server.port, method: method, path: path)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.header("WWW-Authenticate") == #"Basic realm="ContactBox""#)
            #expect(!response.body.contains("812"))
        }
        #expect(recorder.count == 0)
    }

    @Test("The right password, with any user name, opens every route")
    func rightPassword() throws {
        let recorder = SyncRecorder()
        let server = try makeServer(password: Self.password, recorder: recorder)
        for user in ["", "admin", "anyone"] {
            let authorization = [
                ("Authorization", HTTPTestClient.basicAuthorization(user: user, password: Self.password))
            ]
            for path in ["/", "/api/status", "/metrics"] {
                #expect(try get(server, path, headers: authorization).status == 200, "\(user) \(path)")
            }
            let sync = try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/sync", headers: authorization)
            #expect(sync.status == 202)
        }
        #expect(recorder.count == 3)
    }

    @Test("A wrong password, or the right one with a byte missing or extra, answers 401")
    func wrongPassword() throws {
        // Five, all answered 401: the fifth starts a lockout, which only the next request sees (PasswordLimitTests).
        let guessed = try makeServer(password: Self.password)
        for attempt in ["wrong", String(Self.password.dropLast()), Self.password + "y", Self.password.uppercased(), ""]
        {
            let authorization = HTTPTestClient.basicAuthorization(user: "admin", password: attempt)
            #expect(try get(guessed, "/api/status", headers: [("Authorization", authorization)]).status == 401)
        }
        // Credentials that cannot be read are no guess: never locked out, however many.
        let server = try makeServer(password: Self.password)
        for malformed in ["Basic", "Basic !!!", "Bearer abc", "Basic YWRtaW4="] + Array(repeating: "Basic", count: 8) {
            #expect(try get(server, "/api/status", headers: [("Authorization", malformed)]).status == 401)
        }
    }

    @Test("Neither the password nor the Authorization header reach the log or the settings' description")
    func neverLogged() throws {
        let records = LogRecords()
        let server = try makeServer(password: Self.password, records: records)
        let authorization = HTTPTestClient.basicAuthorization(user: "admin", password: Self.password)
        _ = try get(server, "/api/status", headers: [("Authorization", authorization)])
        _ = try get(server, "/api/status", headers: [("Authorization", "Basic d3Jvbmc6d3Jvbmc=")])
        let log = records.lines.joined(separator: "\n")
        #expect(log.contains("Status page listening"))
        for secret in [Self.password, String(authorization.dropFirst(6)), "d3Jvbmc", "Authorization"] {
            #expect(!log.contains(secret))
        }
        let description = "\(StatusServer.Settings(password: Self.password))"
        #expect(!description.contains(Self.password))
        #expect(description.contains("password set"))
    }

    @Test("Comparing passwords looks at every byte of the expected one, whatever the guess")
    func constantTime() {
        let expected = Array("secret".utf8)
        #expect(RequestGuard.constantTimeEqual(Array("secret".utf8), expected))
        #expect(!RequestGuard.constantTimeEqual(Array("secreT".utf8), expected))
        #expect(!RequestGuard.constantTimeEqual(Array("secret!".utf8), expected))
        #expect(!RequestGuard.constantTimeEqual(Array("secre".utf8), expected))
        #expect(!RequestGuard.constantTimeEqual([], expected))
        #expect(!RequestGuard.constantTimeEqual(Array("secret\0".utf8), expected))
    }

    @Test("An empty password, or one with a line break, is refused at start")
    func unusablePassword() {
        for password in ["", "two\nlines"] {
            #expect(throws: StatusServerError.self) {
                _ = try makeServer(password: password)
            }
        }
    }
}

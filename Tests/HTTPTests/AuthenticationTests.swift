import Foundation
import HTTP
import Logging
import Testing

@Suite("Authentication, redirects and secrets", .timeLimit(.minutes(10)))
struct AuthenticationTests {
    @Test("Basic credentials go with the first request, without a challenge")
    func basicIsPreemptive() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: testCredentials)
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/basic"))
        #expect(response.status == 200)
        #expect(try server.stats().unauthorized == 0)
        #expect(client.requestCounts == ["GET": 1])
    }

    @Test("A wrong password comes back as a 401 response")
    func wrongPassword() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: Credentials(username: "user", password: "wrong"))
        let (response, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/basic"))
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
    }

    @Test("Automatic asks the server first: no credentials until its challenge, then Basic with every request")
    func automaticAsksFirst() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: testCredentials, auth: .automatic)
        let (first, _) = try client.send(HTTPRequest(method: "GET", url: server.base + "/basic"))
        #expect(first.status == 200)
        // The first try went without credentials and was challenged; the answer carried Basic.
        #expect(try server.stats().unauthorized == 1)
        let (second, body) = try client.send(HTTPRequest(method: "GET", url: server.base + "/basic"))
        #expect(second.status == 200)
        #expect(try echoedHeaders(body)["authorization"]?.hasPrefix("Basic ") == true)
        #expect(try server.stats().unauthorized == 1)  // the scheme is known: no second challenge
    }

    @Test("Automatic switches to Digest on a Digest challenge and keeps it, answering later challenges at once")
    func automaticSwitchesToDigest() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: testCredentials, auth: .automatic)
        let (first, firstBody) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/digest", body: Array("BEGIN:VCARD".utf8)))
        #expect(first.status == 200)
        #expect(try json(firstBody)["body"] as? String == "BEGIN:VCARD")
        #expect(try echoedHeaders(firstBody)["authorization"]?.hasPrefix("Digest ") == true)
        // Asked without credentials, challenged with Digest, which curl keeps and answers on the next try.
        #expect(try server.stats().unauthorized == 1)
        #expect(client.requestCounts["PUT"] == 2)

        let (second, _) = try client.send(HTTPRequest(method: "PUT", url: server.base + "/digest", body: [1]))
        #expect(second.status == 200)
        #expect(try server.stats().unauthorized == 1)  // the nonce was reused: no new challenge
        #expect(client.requestCounts["PUT"] == 3)
    }

    @Test("Digest works when configured outright")
    func digest() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: testCredentials, auth: .digest)
        let (response, _) = try client.send(HTTPRequest(method: "PROPFIND", url: server.base + "/digest"))
        #expect(response.status == 200)
        #expect(try server.stats().unauthorized == 1)
    }

    @Test("Credentials never appear in descriptions or errors")
    func secretsStaySecret() throws {
        let credentials = Credentials(username: "user", password: "hunter2-secret")
        #expect(!credentials.description.contains("hunter2"))
        #expect(!String(reflecting: credentials).contains("hunter2"))
        var dumped = ""
        dump(credentials, to: &dumped)
        #expect(!dumped.contains("hunter2"))

        let client = try makeClient(credentials: credentials)
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: "http://user:hunter2-secret@127.0.0.1:1/x"))
        }
        #expect(error?.kind == .connect)
        #expect(error.map { !"\($0)".contains("hunter2") && !($0.url ?? "").contains("hunter2") } == true)
        #expect(error?.url == "http://127.0.0.1:1/x")
    }

    @Test("A same-host redirect keeps credentials")
    func sameHostRedirectKeepsCredentials() throws {
        let server = try TestServer()
        let client = try makeClient(credentials: testCredentials)
        let (response, body) = try client.send(HTTPRequest(method: "GET", url: server.base + "/redirect?to=/basic"))
        #expect(response.status == 200)
        #expect(response.url == server.base + "/basic")
        #expect(try echoedHeaders(body)["authorization"] != nil)
        #expect(client.requestCounts == ["GET": 2])
    }

    @Test("A redirect to another host or port is refused, naming both URLs, and nothing is sent there")
    func crossOriginRedirectIsRefused() throws {
        let server = try TestServer()
        let other = try TestServer()
        let client = try makeClient(credentials: testCredentials)
        for target in [server.otherBase + "/echo", other.base + "/echo"] {
            let error = #expect(throws: HTTPError.self) {
                _ = try client.send(
                    HTTPRequest(
                        method: "PUT", url: server.base + "/redirect?status=307&to=\(target)",
                        body: Array("BEGIN:VCARD".utf8)))
            }
            #expect(error?.kind == .refusedRedirect)
            #expect(error?.message.contains(server.base + "/redirect") == true)
            #expect(error?.message.contains(target) == true)
        }
        // Only the two redirecting hops arrived; neither target saw the card.
        #expect(try server.stats().byMethod["PUT"] == 2)
        #expect(try other.stats().byMethod["PUT"] == nil)
    }

    @Test("307 repeats the method and body, 303 turns into a GET without one")
    func redirectMethods() throws {
        let server = try TestServer()
        let client = try makeClient()
        let (_, kept) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/redirect?status=307&to=/echo", body: Array("card".utf8)))
        #expect(try json(kept)["method"] as? String == "PUT")
        #expect(try json(kept)["body"] as? String == "card")
        let (_, changed) = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/redirect?status=303&to=/echo", body: Array("card".utf8)))
        #expect(try json(changed)["method"] as? String == "GET")
        #expect(try json(changed)["body"] as? String == "")
        #expect(client.requestCounts == ["PUT": 3, "GET": 1])
    }

    @Test("Redirects past maxRedirects fail with protocolError")
    func redirectLoop() throws {
        let server = try TestServer()
        let client = try makeClient(maxRedirects: 3)
        let error = #expect(throws: HTTPError.self) {
            _ = try client.send(HTTPRequest(method: "GET", url: server.base + "/redirect"))  // to itself
        }
        #expect(error?.kind == .protocolError)
        #expect(client.requestCounts == ["GET": 4])
        // Three are followed.
        let (response, _) = try client.send(
            HTTPRequest(method: "GET", url: server.base + "/redirect?to=/redirect?to=/redirect?to=/echo"))
        #expect(response.status == 200)
    }

    @Test("Debug logs carry method, path, status and duration, never credentials, queries or headers")
    func logging() throws {
        let server = try TestServer()
        let records = LogRecords()
        var logger = Logger(label: "HTTPTests") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .debug
        let client = try makeClient(credentials: testCredentials, logger: logger)
        _ = try client.send(
            HTTPRequest(method: "PUT", url: server.base + "/basic?token=abc", body: Array("BODY-TEXT".utf8)))
        let entries = records.entries
        #expect(entries.count == 1)
        let metadata = try #require(entries.first?.metadata)
        #expect(metadata["http.method"] == "PUT")
        #expect(metadata["http.path"] == "/basic")
        #expect(metadata["http.status"] == "200")
        #expect(metadata["http.duration_ms"] != nil)
        let everything = entries.map { "\($0.message) \($0.metadata)" }.joined()
        for secret in ["secret", "dXNlcjpzZWNyZXQ", "token=abc", "BODY-TEXT", "Authorization"] {
            #expect(!everything.contains(secret))
        }
    }
}

final class LogRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [(message: String, metadata: Logger.Metadata)] = []

    var entries: [(message: String, metadata: Logger.Metadata)] { lock.withLock { stored } }

    func append(_ message: String, _ metadata: Logger.Metadata) {
        lock.withLock { stored.append((message, metadata)) }
    }
}

struct CapturingLogHandler: LogHandler {
    let records: LogRecords
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append("\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
    }
}

import Foundation
import HTTP
import Logging
import TestSupport

/// The Python test server (Fixtures/test_server.py) on 127.0.0.1 and 127.0.0.2, random ports; stopped by PID
/// when the test lets go of it.
final class TestServer {
    private let process: ChildProcess
    private let folder: TemporaryDirectory
    let port: Int
    let otherPort: Int

    /// http://127.0.0.1:port
    var base: String { "http://127.0.0.1:\(port)" }
    /// The same server on another host, http://127.0.0.2:port
    var otherBase: String { "http://127.0.0.2:\(otherPort)" }

    init() throws {
        folder = try TemporaryDirectory(prefix: "contactbox-http")
        let log = folder.file("server.log")
        process = try ChildProcess(
            path: "python3", arguments: [repositoryRoot + "/Tests/HTTPTests/Fixtures/test_server.py"], logPath: log)
        // The script prints "PORTS <port> <other port>" once both servers listen.
        var fields: [Substring] = []
        try process.waitUntilServing(
            "test_server.py", seconds: 20, log: { Self.text(log) },
            ready: {
                fields = Self.text(log).split(separator: "\n").first?.split(separator: " ") ?? []
                return fields.count == 3 && fields[0] == "PORTS"
            })
        guard let port = Int(fields[1]), let otherPort = Int(fields[2]) else {
            throw TestServerFailure("test_server.py did not report its ports: \(fields)")
        }
        self.port = port
        self.otherPort = otherPort
    }

    private static func text(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// What the server counted: requests by method, 401 challenges sent, and the most requests in `/gather` at once.
    func stats() throws -> (byMethod: [String: Int], unauthorized: Int, peakGathered: Int) {
        let client = try makeClient()
        let (_, body) = try client.send(HTTPRequest(method: "GET", url: base + "/stats"))
        let object = try json(body)
        return (
            object["byMethod"] as? [String: Int] ?? [:], object["unauthorized"] as? Int ?? -1,
            object["peakGathered"] as? Int ?? -1
        )
    }
}

let testCredentials = Credentials(username: "user", password: "secret")

func makeClient(
    credentials: Credentials? = nil, auth: AuthScheme = .basic, transferTimeout: Duration = .seconds(10),
    maxConcurrent: Int = 4, maxRedirects: Int = 5, logger: Logger = Logger(label: "HTTPTests")
) throws -> HTTPClient {
    try HTTPClient(
        HTTPConfiguration(
            userAgent: "ContactBox/test", credentials: credentials, auth: auth, connectTimeout: .seconds(5),
            transferTimeout: transferTimeout, maxConcurrent: maxConcurrent, maxRedirects: maxRedirects),
        logger: logger)
}

struct NotJSON: Error {}

func json(_ bytes: [UInt8]) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { throw NotJSON() }
    return object
}

/// The headers the echo endpoint received, keys lowercased.
func echoedHeaders(_ bytes: [UInt8]) throws -> [String: String] {
    try json(bytes)["headers"] as? [String: String] ?? [:]
}

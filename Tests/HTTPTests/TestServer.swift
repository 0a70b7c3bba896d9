import Foundation
import HTTP
import Logging

/// The Python test server (Fixtures/test_server.py) on 127.0.0.1 and 127.0.0.2, random ports; stopped by PID
/// when the test lets go of it.
final class TestServer {
    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    let port: Int
    let otherPort: Int

    /// http://127.0.0.1:port
    var base: String { "http://127.0.0.1:\(port)" }
    /// The same server on another host, http://127.0.0.2:port
    var otherBase: String { "http://127.0.0.2:\(otherPort)" }

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/test_server.py").path
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        process.standardOutput = output
        try process.run()

        // The script prints "PORTS <port> <other port>" once both servers listen.
        let fields = firstLine(of: output).split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, fields[0] == "PORTS", let port = Int(fields[1]), let otherPort = Int(fields[2]) else {
            process.terminate()
            throw StartFailed(description: "test_server.py did not report its ports: \(fields)")
        }
        self.port = port
        self.otherPort = otherPort
    }

    deinit {
        // SIGKILL: the server inherits the test thread's signal mask, in which SIGTERM may be blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
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

/// The first line a child process writes to `pipe` (its "ready" line), waiting for it.
func firstLine(of pipe: Pipe) -> String {
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
    }
    return String(decoding: line, as: UTF8.self)
}

let testCredentials = Credentials(username: "user", password: "secret")

func makeClient(
    credentials: Credentials? = nil, auth: AuthScheme = .basic, transferTimeout: Int = 10, maxConcurrent: Int = 4,
    maxRedirects: Int = 5, logger: Logger = Logger(label: "HTTPTests")
) throws -> HTTPClient {
    try HTTPClient(
        HTTPConfiguration(
            userAgent: "ContactBox/test", credentials: credentials, auth: auth, connectTimeout: 5,
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

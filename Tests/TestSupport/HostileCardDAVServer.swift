import Foundation

/// Tests/ContactboxTests/Fixtures/hostile_carddav.py, the stand-in for servers that break one thing each, with one
/// scenario, on 127.0.0.1 and a random port, stopped by PID when let go. Its files go to `logDirectory`.
public final class HostileCardDAVServer {
    public let process: ChildProcess
    public let port: Int
    /// Every request line and header block the server received.
    public let requestLog: String

    public init(_ scenario: String, logDirectory: String) throws {
        let script = repositoryRoot + "/Tests/ContactboxTests/Fixtures/hostile_carddav.py"
        requestLog = logDirectory + "/requests.log"
        let output = logDirectory + "/server.out"
        process = try ChildProcess(path: "python3", arguments: [script, scenario, requestLog], logPath: output)
        var port = 0
        let log = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        try process.waitUntilServing("hostile_carddav.py", seconds: 10, log: log) {
            guard let line = log().split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
                let value = Int(line.dropFirst(5))
            else { return false }
            port = value
            return true
        }
        self.port = port
    }

    deinit { process.terminate() }

    public var bookURL: String { "http://127.0.0.1:\(port)/book/" }

    /// The request lines ("PUT /book/x.vcf HTTP/1.1") and headers received so far, bytes as Latin-1.
    public func requests() -> [String] {
        let bytes = FileManager.default.contents(atPath: requestLog) ?? Data()
        return String(decoding: bytes.map { $0 }, as: Unicode.ASCII.self).split(separator: "\n").map(String.init)
    }
}

import Foundation
import HTTP
import Testing

/// Resident memory of this process in KiB, from /proc/self/status.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? -1
}

/// Opt-in, alone, because other tests running in parallel move the figure:
/// `CONTACTBOX_MEASURE_MEMORY=1 swift test --scratch-path .build-http --filter HTTPTests.MemoryTests`
@Suite("Memory", .enabled(if: ProcessInfo.processInfo.environment["CONTACTBOX_MEASURE_MEMORY"] == "1"))
struct MemoryTests {
    @Test("A client with one idle connection adds well under 1 MB after 100 requests")
    func idleClientIsSmall() throws {
        let server = try TestServer()
        // Warm up the process-wide parts (libcurl's global state, the test runtime) with another client.
        _ = try makeClient().send(HTTPRequest(method: "GET", url: server.base + "/echo"))
        let before = residentKiB()
        let client = try makeClient()
        var connections: Set<Int> = []
        for index in 0..<100 {
            let method = ["GET", "PUT", "PROPFIND", "REPORT"][index % 4]
            let (_, body) = try client.send(
                HTTPRequest(method: method, url: server.base + "/echo", body: Array(repeating: 65, count: 2000)))
            connections.insert(try json(body)["connection"] as? Int ?? -1)
        }
        let after = residentKiB()
        print("HTTP client memory: VmRSS \(before) KiB before, \(after) KiB after 100 requests: +\(after - before) KiB")
        #expect(connections.count == 1)
        #expect(after - before < 1024)

        // Four connections and four easy handles, all kept for reuse.
        let requests = (0..<16).map { _ in HTTPRequest(method: "GET", url: server.base + "/sleep?seconds=0.1") }
        try client.sendAll(requests) { _, result in _ = try result.get() }
        let concurrent = residentKiB()
        print("HTTP client memory: +\(concurrent - before) KiB after sendAll with 4 connections")
        #expect(concurrent - before < 2048)
    }
}

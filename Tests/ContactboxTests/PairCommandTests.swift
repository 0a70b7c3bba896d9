import Foundation
import TestSupport
import Testing

/// `contactbox pair` against a running daemon: the code it prints pairs a browser on the page, and
/// `--forget-all` un-pairs every browser at once, while the daemon runs.
@Suite("Pairing from the command line", .timeLimit(.minutes(5)))
struct PairCommandTests {
    @Test("the printed code pairs one browser, whose token then opens the undo; --forget-all closes it again")
    func codeThenForget() throws {
        let workspace = try Workspace()
        // The store's folder, as the installer makes /var/lib/contactbox: the pairing files live there too.
        let folder = (workspace.db as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let config = try RunCommandTests().makeConfig(workspace, port: port)
        let daemon = try RunCommandTests().start(config, log: workspace.path + "/daemon.log")
        defer { _ = RunCommandTests().stop(daemon) }
        let idle = RunCommandTests().waitForStatus(port: port) { $0.contains("\"state\":\"idle\"") }
        #expect(idle.contains("\"state\":\"idle\""), "\(idle)")
        let origin = [("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")]

        let unpaired = try HTTPTestClient.request(
            port: port, method: "POST", path: "/api/undo/preview?run=1", headers: origin)
        #expect(unpaired.status == 403)

        let printed = try contactbox(["pair", "--db", workspace.db])
        #expect(printed.status == 0, "\(printed.stderr) \(printed.stdout)")
        let first = try #require(printed.stdout.split(separator: "\n").first)
        #expect(first.hasPrefix("Pairing code: "))
        let code = first.dropFirst("Pairing code: ".count)
        #expect(code.count == 9)
        #expect(printed.stdout.contains("within 10 minutes"))
        var info = stat()
        #expect(stat(folder + "/pairing-code", &info) == 0 && info.st_mode & 0o777 == 0o600)

        let headers = try pairedHeaders(code: String(code), port: port)
        let cookie = try #require(headers.first { $0.0 == "Cookie" }?.1)
        let preview = try HTTPTestClient.request(
            port: port, method: "POST", path: "/api/undo/preview?run=1", headers: headers)
        #expect(preview.status == 202, "\(preview.body)")
        // The code pairs once.
        let again = try HTTPTestClient.request(
            port: port, method: "POST", path: "/api/pairing?code=\(code)", headers: origin)
        #expect(again.status == 403)

        #expect(try contactbox(["pair", "--db", workspace.db, "--forget-all"]).status == 0)
        let forgotten = try HTTPTestClient.request(port: port, path: "/api/pairing", headers: [("Cookie", cookie)])
        #expect(forgotten.body == "{\"pairing\":\"none\"}\n")
        let refused = try HTTPTestClient.request(
            port: port, method: "POST", path: "/api/undo/cancel", headers: headers)
        #expect(refused.status == 403)
    }
}

/// Pairs a browser with a one-time code of `contactbox pair` on the daemon at `port`: the headers its changes then
/// carry (the page's origin, the cookie, the token).
func pairedHeaders(code: String, port: UInt16) throws -> [(String, String)] {
    let origin = [("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")]
    let paired = try HTTPTestClient.request(
        port: port, method: "POST", path: "/api/pairing?code=\(code)", headers: origin)
    #expect(paired.status == 200, "\(paired.body)")
    let cookie = try #require(paired.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
    let token = try #require(
        paired.body.split(separator: "\"").drop { $0 != "token" }.dropFirst(2).first.map(String.init))
    return origin + [("Cookie", cookie), ("X-ContactBox-Token", token)]
}

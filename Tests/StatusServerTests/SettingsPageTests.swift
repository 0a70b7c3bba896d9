import Logging
import TestSupport
import Testing

@testable import StatusServer

@Suite("/api/settings: the settings a paired browser reads and changes")
struct SettingsPageTests {
    static let view = SettingsView(
        version: "00000000000000ff", interval: "15m", intervalFixed: false, boxName: nil, boxNameFixed: true,
        remotes: [
            SettingsView.Remote(
                name: "nas", kind: "vdir", location: "/mnt/nas", username: nil, paused: true, fixed: false,
                origin: "/var/lib/contactbox/settings.toml:3")
        ], problems: ["settings.toml:9: interval: \"soon\" is no duration"])

    @Test("urlencoded fields: + and %XX decoded, UTF-8 only, each name once, at most 32")
    func form() {
        #expect(
            FormBody.fields(Array("version=00ff&action=box-name&value=K%C3%BCche+1&empty=".utf8))
                == ["version": "00ff", "action": "box-name", "value": "Küche 1", "empty": ""])
        #expect(FormBody.fields([]) == [:])
        #expect(FormBody.fields(Array("a=%ZZ".utf8)) == nil)
        #expect(FormBody.fields(Array("a=%C3".utf8)) == nil)
        #expect(FormBody.fields(Array("a=%4".utf8)) == nil)
        #expect(FormBody.fields(Array("a=1&a=2".utf8)) == nil)
        #expect(FormBody.fields(Array("=1".utf8)) == nil)
        let many = (0...FormBody.fieldLimit).map { "f\($0)=1" }.joined(separator: "&")
        #expect(FormBody.fields(Array(many.utf8)) == nil)
    }

    @Test("read by a paired browser only; changed with its token, in the form or the header; what the daemon says")
    func readAndChange() throws {
        let pairings = PairedBrowsers(folder: nil)
        let asked = Recorder<SettingsRequest>()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: LogRecords()) }
        let server = try StatusServer(
            settings: .init(host: "127.0.0.1", port: 0), snapshot: { makeSnapshot() }, syncNow: {},
            pairings: pairings,
            pageSettings: { request in
                asked.record(request)
                if case .change(let form) = request, form["action"] == "interval" {
                    return .refused(status: 412, message: "changed meanwhile")
                }
                return .view(Self.view)
            }, logger: logger)
        #expect(try get(server, "/api/settings").status == 403)
        let paired = pairedHeaders(pairings, port: server.port)
        let cookieOnly = paired.filter { $0.0 == "Cookie" }
        let read = try get(server, "/api/settings", headers: cookieOnly)
        #expect(read.status == 200)
        #expect(
            read.body
                == #"{"version":"00000000000000ff","sync":{"interval":"15m","fixed":false},"box":{"name":null,"fixed":true},"#
                + #""page_password":{"set":false,"fixed":false},"#
                + #""remotes":[{"name":"nas","kind":"vdir","location":"/mnt/nas","username":null,"paused":true,"#
                + #""conflict":"newest","signs_in":false,"fixed":false,"#
                + #""origin":"/var/lib/contactbox/settings.toml:3"}],"problems":["settings.toml:9: interval: \"soon\" is no duration"]}"#
                + "\n")

        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        func post(_ body: String, _ headers: [(String, String)]) throws -> HTTPTestResponse {
            try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/settings", headers: headers + form, body: body)
        }
        // Without the token (neither header nor field), or from an unpaired browser: refused, nothing asked.
        let origin = paired.filter { $0.0 == "Origin" || $0.0 == "Sec-Fetch-Site" }
        #expect(try post("version=none&action=pause&remote=nas", cookieOnly + origin).status == 403)
        #expect(try post("version=none&action=pause&remote=nas", origin).status == 403)
        #expect(asked.requests == [.read])
        let token = try #require(paired.first { $0.0 == "X-ContactBox-Token" }?.1)
        let byField = try post("version=none&action=pause&remote=nas&token=\(token)", cookieOnly + origin)
        #expect(byField.status == 200)
        let byHeader = try post("version=none&action=interval&value=30m", paired)
        #expect(byHeader.status == 412)
        #expect(byHeader.body == "{\"error\":\"changed meanwhile\"}\n")
        // The daemon is told which paired browser asks, whatever a form says it is.
        let browser = try #require(pairings.list().first?.id)
        #expect(
            asked.requests.dropFirst()
                == [
                    .change([
                        "version": "none", "action": "pause", "remote": "nas", "token": token, "@browser": browser,
                    ]),
                    .change(["version": "none", "action": "interval", "value": "30m", "@browser": browser]),
                ])
        _ = try post("version=none&action=box-name&value=x&%40browser=someone-else", paired)
        #expect(
            asked.requests.last
                == .change(["version": "none", "action": "box-name", "value": "x", "@browser": browser]))
        // A body the form reader refuses, and one over 4 KiB.
        #expect(try post("a=%ZZ", paired).status == 400)
        #expect(try post(String(repeating: "x", count: 4097), paired).status == 413)
        #expect(asked.requests.count == 4)
    }
}

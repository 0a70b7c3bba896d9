import SafeText
import Testing

@testable import StatusServer

@Suite("The JSON API")
struct StatusJSONTests {
    @Test("GET /api/status answers JSON with every key, uncached")
    func everyKey() throws {
        let server = try makeServer()
        let response = try get(server, "/api/status")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("Cache-Control") == "no-store")
        let json = try TestJSON.parse(response.body)
        #expect(json.keys == StatusJSON.topLevelKeys)
        #expect(
            json.keys == [
                "state", "summary", "attention", "advice", "leds", "last_sync", "next_sync", "started_at", "contacts",
                "remotes", "events", "version", "build", "runs", "undo", "copies", "damage",
            ])
        #expect(json["leds"]?[0]?.keys == ["name", "lit", "pattern"])
        #expect(
            json["remotes"]?[0]?.keys == [
                "name", "kind", "last_result", "last_sync", "uploaded", "downloaded", "updated", "deleted",
                "conflicts", "errors", "message",
            ])
        #expect(json["events"]?[0]?.keys == ["time", "level", "message"])
    }

    @Test("Values come through as they are, with null for what is absent")
    func values() throws {
        let json = try TestJSON.parse(render(makeSnapshot()))
        #expect(json["state"] == .string("idle"))
        #expect(json["attention"] == .null)
        #expect(json["advice"] == .null)
        #expect(json["last_sync"] == .number("1700000000"))
        #expect(json["next_sync"] == .number("1700000900"))
        #expect(json["started_at"] == .number("1699990000"))
        #expect(json["contacts"] == .number("812"))
        #expect(
            json["leds"]?[0]
                == .object([("name", .string("power")), ("lit", .bool(true)), ("pattern", .string("steady"))]))
        #expect(json["leds"]?[1]?["lit"] == .bool(false))
        #expect(json["remotes"]?[0]?["deleted"] == .number("4"))
        #expect(json["remotes"]?[0]?["message"] == .null)
        #expect(json["remotes"]?[1]?["last_sync"] == .null)
        #expect(json["events"]?[0]?["message"] == .string("Sync of <i>work</i> failed"))
        #expect(json["version"] == .string("1.2.3"))
        #expect(json["build"] == .string("abc1234"))

        let attention = try TestJSON.parse(render(makeSnapshot(state: "attention")))
        #expect(attention["attention"] == .string("login"))
        #expect(attention["advice"] == .string("Check the app password of icloud"))
    }

    @Test("Quotes and markup are JSON-escaped and decode back; control characters arrive shown as \\u{..}")
    func escapedName() throws {
        let body = render(makeSnapshot())
        #expect(body.contains(#""name":"Work \"Team\"\\u{A}<script>alert(1)</script> & co""#))
        #expect(body.contains(#""message":"Server said \"no\"\\u{9}then\\u{1}<b>bold</b>""#))
        let json = try TestJSON.parse(body)
        #expect(json["remotes"]?[1]?["name"] == .string("Work \"Team\"\\u{A}<script>alert(1)</script> & co"))
        #expect(json["remotes"]?[1]?["message"] == .string("Server said \"no\"\\u{9}then\\u{1}<b>bold</b>"))
    }

    @Test("An event with ESC, a line break, C1, a separator and a bidi override: no such character in the JSON")
    func escapedEvent() throws {
        var snapshot = makeSnapshot()
        snapshot.events = [.init(time: 1, level: "error", message: "Card \u{1B}[2J\n<3>x\u{9B}\u{2028}\u{202E}gpj")]
        let body = render(snapshot)
        #expect(!body.unicodeScalars.contains { isUnprintable($0) && $0 != "\n" })
        #expect(body.hasSuffix("\n") && body.filter { $0 == "\n" }.count == 1)
        let json = try TestJSON.parse(body)
        #expect(json["events"]?[0]?["message"] == .string(#"Card \u{1B}[2J\u{A}<3>x\u{9B}\u{2028}\u{202E}gpj"#))
    }

    @Test("The JSON encoder itself escapes every control character, the quote and the backslash (RFC 8259)")
    func controlCharacters() throws {
        var text = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        text += "\"\\/ é 😀 \u{7F}"
        var writer = ByteWriter(capacity: 256)
        writer.jsonEncoded(text)
        #expect(!writer.bytes.contains { $0 < 0x20 })
        let encoded = String(decoding: writer.bytes, as: UTF8.self)
        #expect(encoded.hasPrefix(#""\u0000\u0001"#))
        #expect(encoded.contains(#"\b\t\n\u000b\f\r"#))
        #expect(encoded.contains(#"\u001b"#))
        #expect(encoded.contains(#"\u001f\"\\/ é 😀"#))
        #expect(try TestJSON.parse(encoded) == .string(text))
    }

    @Test("An empty box renders as empty lists, not missing keys")
    func emptyBox() throws {
        let snapshot = StatusSnapshot(
            state: "starting", summary: "Starting", leds: [], startedAt: 0, contacts: 0, remotes: [], events: [],
            version: "", build: "")
        let json = try TestJSON.parse(render(snapshot))
        #expect(json["remotes"] == .array([]))
        #expect(json["events"] == .array([]))
        #expect(json["leds"] == .array([]))
        #expect(json["last_sync"] == .null)
    }

    private func render(_ snapshot: StatusSnapshot) -> String {
        var writer = ByteWriter(capacity: 1024)
        StatusJSON.render(snapshot, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

import Testing

@testable import StatusServer

@Suite("The Prometheus metrics")
struct StatusMetricsTests {
    @Test("Every line is a HELP, a TYPE or a sample `name{labels} value` of a declared family")
    func format() throws {
        let server = try makeServer()
        let response = try get(server, "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.body.hasSuffix("\n"))

        var helped: Set<String> = []
        var types: [String: String] = [:]
        var samples = 0
        for line in response.body.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).prefix { $0 != " " })
                #expect(helped.insert(name).inserted, "HELP twice for \(name)")
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                try #require(parts.count == 2, "bad TYPE line: \(line)")
                #expect(types[String(parts[0])] == nil, "TYPE twice for \(parts[0])")
                types[String(parts[0])] = String(parts[1])
                continue
            }
            let sample = try #require(Sample(line), "not a sample line: \(line)")
            samples += 1
            #expect(sample.name.hasPrefix("contactbox_"))
            let type = try #require(types[sample.name], "sample before its TYPE: \(line)")
            #expect(helped.contains(sample.name))
            #expect(["gauge", "counter"].contains(type))
            #expect((type == "counter") == sample.name.hasSuffix("_total"), "\(sample.name) is a \(type)")
        }
        #expect(samples > 20)
    }

    @Test("The samples carry the snapshot's values, one state gauge per state")
    func values() throws {
        let text = render(makeSnapshot())
        for line in [
            "contactbox_up 1", "contactbox_contacts 812", #"contactbox_state{state="idle"} 1"#,
            #"contactbox_state{state="syncing"} 0"#, #"contactbox_state{state="attention"} 0"#,
            #"contactbox_led_lit{led="power"} 1"#, #"contactbox_led_lit{led="sync"} 0"#,
            #"contactbox_sync_runs_total{outcome="ok"} 12"#, #"contactbox_sync_runs_total{outcome="failed"} 1"#,
            #"contactbox_sync_runs_total{outcome="interrupted"} 0"#, "contactbox_items_uploaded_total 7",
            "contactbox_items_downloaded_total 30", "contactbox_items_updated_total 4",
            "contactbox_items_deleted_total 2", "contactbox_conflicts_total 1", "contactbox_item_errors_total 3",
            "contactbox_button_presses_total 5", "contactbox_last_sync_timestamp_seconds 1700000000",
            "contactbox_last_sync_duration_seconds 2.5", "contactbox_next_sync_timestamp_seconds 1700000900",
            "contactbox_start_time_seconds 1699990000", #"contactbox_remote_up{remote="icloud"} 1"#,
            #"contactbox_remote_last_sync_timestamp_seconds{remote="icloud"} 1700000000"#,
            #"contactbox_build_info{version="1.2.3",build="abc1234"} 1"#,
        ] {
            #expect(text.contains("\n" + line + "\n"), "missing: \(line)")
        }
        // One per state the appliance knows, "setup" (no address book yet) among them.
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("contactbox_state{") }.count == 7)
        #expect(text.contains(#"contactbox_state{state="setup"} 0"#))
    }

    @Test("Label values are escaped as the text format requires")
    func labelEscaping() throws {
        let text = render(makeSnapshot())
        #expect(text.contains(#"contactbox_remote_up{remote="Work \"Team\"\n<script>alert(1)</script> & co"} 0"#))
        // A remote that never synced has no timestamp sample, rather than 1970.
        #expect(!text.contains(#"contactbox_remote_last_sync_timestamp_seconds{remote="Work"#))
    }

    @Test("Unknown values have no sample, and special floats use Prometheus' spelling")
    func absentValues() throws {
        let snapshot = StatusSnapshot(
            state: "rebooting", summary: "", leds: [], startedAt: 5, contacts: 0, remotes: [], events: [],
            version: "v", build: "b")
        let text = render(snapshot)
        #expect(!text.contains("\ncontactbox_last_sync_timestamp_seconds "))
        #expect(!text.contains("\ncontactbox_last_sync_duration_seconds "))
        #expect(text.contains("# TYPE contactbox_last_sync_timestamp_seconds gauge\n"))
        #expect(text.contains(#"contactbox_state{state="rebooting"} 1"#))
        for (value, spelled) in [
            (Double.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN"), (0.25, "0.25"), (3, "3"),
        ] {
            var writer = ByteWriter(capacity: 8)
            writer.sampleValue(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == spelled)
        }
    }

    private func render(_ snapshot: StatusSnapshot) -> String {
        var writer = ByteWriter(capacity: 4096)
        StatusMetrics.render(snapshot, into: &writer)
        return "\n" + String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// One sample line: `name`, optional `{label="value",...}` with the format's escapes, a space and a float.
private struct Sample {
    var name: String
    var labels: [(String, String)] = []

    init?(_ line: Substring) {
        var rest = line[...]
        let isNameStart = { (c: Character) in c.isLetter && c.isASCII || c == "_" || c == ":" }
        let isName = { (c: Character) in isNameStart(c) || c.isASCII && c.isNumber }
        guard let first = rest.first, isNameStart(first) else { return nil }
        name = String(rest.prefix(while: isName))
        rest = rest.dropFirst(name.count)
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix(while: isName))
                guard !label.isEmpty else { return nil }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    guard character == "\\" else {
                        guard character != "\n" else { return nil }
                        value.append(character)
                        continue
                    }
                    switch rest.first {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: return nil
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels.append((label, value))
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let value = rest.dropFirst()
        guard Double(value) != nil || ["+Inf", "-Inf", "NaN"].contains(value) else { return nil }
    }
}

import TestSupport
import Testing

@testable import StatusServer

/// A damaged store, with the good copy a recover would put in place (none: `copy` false), and, when asked, the
/// recover in `phase`.
func makeDamagedSnapshot(copy: Bool = true, _ phase: StatusSnapshot.Undo.Phase? = nil) -> StatusSnapshot {
    var snapshot = makeUndoSnapshot()
    snapshot.state = "attention"
    snapshot.attention = "storage"
    let good = StatusSnapshot.Copy(madeAt: 1_699_990_000, bytes: 2_500_000)
    snapshot.copies = [good]
    snapshot.damage = .init(problem: "Tree 4 page 4: btreeInitPage() returns error code 11", copy: copy ? good : nil)
    if let phase {
        snapshot.undo = .init(
            run: 0, phase: phase, deadline: phase == .armed ? 1_700_000_120 : nil,
            recover: .init(copyMadeAt: good.madeAt))
    }
    return snapshot
}

@Suite("The recover of a damaged store on the status page")
struct RecoverPageTests {
    @Test("/api/status has the damage with the copy offered, and the recover as an undo with its copy")
    func json() throws {
        let json = try TestJSON.parse(
            try get(try makeServer(snapshot: makeDamagedSnapshot(.armed)), "/api/status").body)
        let damage = try #require(json["damage"])
        #expect(damage.keys == ["problem", "copy"])
        #expect(damage["problem"] == .string("Tree 4 page 4: btreeInitPage() returns error code 11"))
        #expect(damage["copy"]?["made"] == .number("1699990000"))
        #expect(damage["copy"]?["bytes"] == .number("2500000"))
        let undo = try #require(json["undo"])
        #expect(undo["run"] == .number("0"))
        #expect(undo["phase"] == .string("armed"))
        #expect(undo["recover"]?.keys == ["copy_made", "contacts", "kept_as"])
        #expect(undo["recover"]?["copy_made"] == .number("1699990000"))
        #expect(undo["recover"]?["contacts"] == .null)

        var done = makeDamagedSnapshot(.done)
        done.damage = nil
        done.undo?.recover = .init(copyMadeAt: 1_699_990_000, contacts: 812, keptAs: "/var/lib/c.sqlite.damaged-17")
        let after = try TestJSON.parse(try get(try makeServer(snapshot: done), "/api/status").body)
        #expect(after["damage"] == .null)
        #expect(after["undo"]?["recover"]?["contacts"] == .number("812"))
        #expect(after["undo"]?["recover"]?["kept_as"] == .string("/var/lib/c.sqlite.damaged-17"))
        let none = try TestJSON.parse(
            try get(try makeServer(snapshot: makeDamagedSnapshot(copy: false)), "/api/status").body)
        #expect(none["damage"]?["copy"] == .null)
    }

    @Test("The page offers the recover only while the store is damaged, and says so when no copy is good")
    func offer() throws {
        let sound = try get(try makeServer(snapshot: makeUndoSnapshot()), "/").body
        #expect(sound.contains(#"<div id="recover" class="recover" data-copy="" hidden>"#))
        #expect(sound.contains(#"<form id="recover-form" method="post" action="/api/recover" hidden>"#))

        let page = try get(try makeServer(snapshot: makeDamagedSnapshot()), "/").body
        #expect(page.contains(#"<div id="recover" class="recover" data-copy="1699990000">"#))
        #expect(page.contains(#"<form id="recover-form" method="post" action="/api/recover"><button id="recover-now""#))
        #expect(page.contains("Recover from the safety copy of <time"))
        #expect(page.contains("2023-11-14 19:26 UTC</time></button>"))
        #expect(page.contains("The store is damaged. Recovering puts its newest good safety copy in its place"))

        let noCopy = try get(try makeServer(snapshot: makeDamagedSnapshot(copy: false)), "/").body
        #expect(noCopy.contains(#"<div id="recover" class="recover" data-copy="">"#))
        #expect(noCopy.contains(#"action="/api/recover" hidden>"#))
        #expect(noCopy.contains("no safety copy passes the check: there is none to recover from, and nothing changed"))

        // While it waits for the button, the offer's button goes and the undo's box says what to do.
        let armed = try get(try makeServer(snapshot: makeDamagedSnapshot(.armed)), "/").body
        #expect(armed.contains(#"action="/api/recover" hidden>"#))
        #expect(
            armed.contains(
                "To recover the store from the copy of 2023-11-14 19:26 UTC, hold the button on the box for 3 seconds"))
        #expect(!armed.contains(#"action="/api/undo/cancel" hidden"#))
    }

    @Test("After the recover the page says what it did, and each other end in its words")
    func outcome() throws {
        var done = makeDamagedSnapshot(.done)
        done.damage = nil
        done.undo?.recover = .init(copyMadeAt: 1_699_990_000, contacts: 812, keptAs: "/var/lib/c.sqlite.damaged-17")
        let page = try get(try makeServer(snapshot: done), "/").body
        #expect(
            page.contains(
                "Recovered from the copy of 2023-11-14 19:26 UTC: 812 contacts; the damaged store is kept as"
                    + " /var/lib/c.sqlite.damaged-17; syncing to bring back changes since."))
        #expect(page.contains(#"<div id="recover" class="recover" data-copy="" hidden>"#))
        let words: [(StatusSnapshot.Undo.Phase, String)] = [
            (.confirmed, "Recovering the store from the copy of 2023-11-14 19:26 UTC"),
            (.cancelled, "The recover of the store was cancelled; nothing changed."),
            (.expired, "The recover of the store was not confirmed at the box in time; nothing changed."),
        ]
        for (phase, text) in words {
            #expect(try get(try makeServer(snapshot: makeDamagedSnapshot(phase)), "/").body.contains(text), "\(phase)")
        }
        var failed = makeDamagedSnapshot(.failed)
        failed.undo?.message = "no safety copy passes the check any more; nothing changed"
        #expect(
            try get(try makeServer(snapshot: failed), "/").body.contains(
                "The recover from the copy of 2023-11-14 19:26 UTC failed: no safety copy passes the check any more"))
        // The script has the same words.
        #expect(StatusPage.script.contains("function recoverText(u)"))
        #expect(StatusPage.script.contains("\"; syncing to bring back changes since.\""))
    }

    @Test("POST /api/recover arms it only while the store is damaged with a good copy and nothing else waits")
    func arming() throws {
        let undo = UndoRecorder()
        let live = SnapshotBox(makeUndoSnapshot())
        let pairings = PairedBrowsers(folder: nil)
        let server = try makeServer(undo: undo, live: live, pairings: pairings)
        let paired = pairedHeaders(pairings, port: server.port)
        func post(_ headers: [(String, String)]) throws -> HTTPTestResponse {
            try HTTPTestClient.request(port: server.port, method: "POST", path: "/api/recover", headers: headers)
        }
        let sound = try post(paired)
        #expect(sound.status == 409 && sound.body.contains("nothing to recover"))
        live.current = makeDamagedSnapshot(copy: false)
        let noCopy = try post(paired)
        #expect(noCopy.status == 409 && noCopy.body.contains("No safety copy of the store passes the check"))
        for phase: StatusSnapshot.Undo.Phase in [.armed, .confirmed] {
            live.current = makeDamagedSnapshot(phase)
            #expect(try post(paired).status == 409, "\(phase)")
        }
        live.current = makeDamagedSnapshot()
        // Only a paired browser.
        #expect(try post([]).status == 403)
        #expect(undo.requests.isEmpty)
        let armed = try post(paired)
        #expect(armed.status == 202)
        #expect(armed.body == "{\"requested\":\"recover\",\"run\":null}\n")
        #expect(undo.requests == [.recover])
    }
}

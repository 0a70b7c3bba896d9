import SafeText
import TestSupport
import Testing

@testable import StatusServer

/// Two restore points (a sync with a hostile remote name, then an import) and, when asked, an undo in `phase`.
func makeUndoSnapshot(_ phase: StatusSnapshot.Undo.Phase? = nil, run: Int64 = 42) -> StatusSnapshot {
    var snapshot = makeSnapshot()
    snapshot.runs = [
        .init(
            id: 42, kind: "sync", remote: hostileName, startedAt: 1_700_000_000, finishedAt: 1_700_000_004,
            outcome: "ok", created: 1, updated: 3, deleted: 0,
            remoteCounts: .init(uploaded: 0, downloaded: 1, updated: 3, deleted: 0)),
        .init(
            id: 41, kind: "import", startedAt: 1_699_990_000, finishedAt: 1_699_990_002, outcome: "ok", created: 400,
            note: "contacts.vcf"),
    ]
    if let phase {
        snapshot.undo = .init(
            run: run, phase: phase, deadline: phase == .armed ? 1_700_000_120 : nil, revived: 0, reverted: 3,
            deleted: 1, skipped: 0,
            contacts: [.init(name: "Ada <b>Lovelace</b>", action: "reverted"), .init(name: "Bob", action: "deleted")])
    }
    return snapshot
}

@Suite("Restore points and the undo on the status page")
struct UndoPageTests {
    static let password = "correct horse: battery"
    static let authorization = [
        ("Authorization", HTTPTestClient.basicAuthorization(user: "", password: password))
    ]

    @Test("/api/status lists the restore points with both sides' counts, and the undo with its step")
    func json() throws {
        let server = try makeServer(snapshot: makeUndoSnapshot(.armed), password: Self.password)
        let json = try TestJSON.parse(try get(server, "/api/status", headers: Self.authorization).body)
        let run = try #require(json["runs"]?[0])
        #expect(
            run.keys == [
                "id", "kind", "remote", "started_at", "finished_at", "outcome", "store", "remote_counts", "note",
            ])
        #expect(run["id"] == .number("42"))
        #expect(run["remote"] == .string(printable(hostileName)))
        #expect(run["store"]?["created"] == .number("1"))
        #expect(run["store"]?["updated"] == .number("3"))
        #expect(run["remote_counts"]?["downloaded"] == .number("1"))
        #expect(json["runs"]?[1]?["remote_counts"] == .null)
        #expect(json["runs"]?[1]?["note"] == .string("contacts.vcf"))
        let undo = try #require(json["undo"])
        #expect(
            undo.keys == [
                "run", "phase", "deadline", "revived", "reverted", "deleted", "skipped", "undo_run", "message",
                "restore", "recover", "contacts",
            ])
        #expect(undo["recover"] == .null)
        #expect(json["damage"] == .null)
        #expect(undo["phase"] == .string("armed"))
        #expect(undo["deadline"] == .number("1700000120"))
        #expect(undo["reverted"] == .number("3"))
        #expect(undo["contacts"]?[0]?["name"] == .string("Ada <b>Lovelace</b>"))
        #expect(undo["contacts"]?[0]?["action"] == .string("reverted"))
    }

    @Test("Without a password the page and the JSON show the undo's counts but no contact names")
    func noNamesWithoutPassword() throws {
        let server = try makeServer(snapshot: makeUndoSnapshot(.previewed))
        let body = try get(server, "/api/status").body
        let json = try TestJSON.parse(body)
        #expect(json["undo"]?["reverted"] == .number("3"))
        #expect(json["undo"]?["contacts"] == .array([]))
        #expect(!body.contains("Lovelace") && !body.contains("Bob"))
        let page = try get(server, "/").body
        #expect(page.contains("3 put back, 1 deleted"))
        #expect(!page.contains("Lovelace") && !page.contains(">Bob"))
    }

    @Test("With a password, the page names the contacts the undo changes, escaped")
    func namesBehindPassword() throws {
        let server = try makeServer(snapshot: makeUndoSnapshot(.previewed), password: Self.password)
        let page = try get(server, "/", headers: Self.authorization).body
        #expect(page.contains("<li>Ada &lt;b&gt;Lovelace&lt;/b&gt; <span class=\"action\">put back</span></li>"))
        #expect(page.contains("<li>Bob <span class=\"action\">deleted</span></li>"))
    }

    @Test("The page lists each restore point with an \"Undo this\" form, and the previewed undo asks to confirm")
    func page() throws {
        let server = try makeServer(snapshot: makeUndoSnapshot(.previewed))
        let page = try get(server, "/").body
        #expect(page.contains(#"<ol id="runs">"#))
        #expect(page.contains(#"<li class="run kind-sync" data-run="42">"#))
        #expect(page.contains("Sync with Work &quot;Team&quot;\\u{A}&lt;script&gt;"))
        #expect(page.contains("Contacts: 1 created \u{B7} 3 updated"))
        #expect(page.contains(": 1 received \u{B7} 3 updated</p>"))
        #expect(page.contains(#"<form class="undo-form" method="post" action="/api/undo/preview?run=42">"#))
        #expect(page.contains(#">Undo this sync</button>"#))
        #expect(page.contains(#"<li class="run kind-import" data-run="41">"#))
        #expect(page.contains("Import (contacts.vcf)"))
        #expect(page.contains(#"<div id="undo" class="undo undo-previewed" role="status" data-phase="previewed""#))
        #expect(page.contains("Undoing run 42 would change the contacts: 3 put back, 1 deleted. Undo it?"))
        #expect(page.contains(#"<form id="undo-confirm-form" method="post" action="/api/undo?run=42">"#))
        #expect(page.contains(#"<form id="undo-cancel-form" method="post" action="/api/undo/cancel">"#))
    }

    @Test("Without an undo the box is hidden; once armed, the page says to hold the button and offers no confirm")
    func pageSteps() throws {
        let none = try get(try makeServer(snapshot: makeUndoSnapshot()), "/").body
        #expect(none.contains(#"data-phase="" data-run="" hidden>"#))
        let armed = try get(try makeServer(snapshot: makeUndoSnapshot(.armed)), "/").body
        #expect(armed.contains("To undo run 42, hold the button on the box for 3 seconds"))
        #expect(armed.contains(#"<form id="undo-confirm-form" method="post" action="/api/undo?run=42" hidden>"#))
        #expect(!armed.contains(#"action="/api/undo/cancel" hidden"#))
        var done = makeUndoSnapshot(.done)
        done.undo?.undoRun = 43
        let page = try get(try makeServer(snapshot: done), "/").body
        #expect(page.contains("Run 42 undone: 3 put back, 1 deleted. This undo is run 43, and can be undone too."))
        #expect(page.contains(#"action="/api/undo/cancel" hidden"#))
    }

    @Test("Preview, then arm, then cancel: each a POST answered 202 and handed on, changing nothing itself")
    func steps() throws {
        let undo = UndoRecorder()
        let live = SnapshotBox(makeUndoSnapshot())
        let pairings = PairedBrowsers(folder: nil)
        let server = try makeServer(undo: undo, live: live, pairings: pairings)
        let paired = pairedHeaders(pairings, port: server.port)
        let preview = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/preview?run=42", headers: paired)
        #expect(preview.status == 202)
        #expect(preview.body == "{\"requested\":\"preview\",\"run\":42}\n")
        live.current = makeUndoSnapshot(.previewed)
        let arm = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo?run=42", headers: paired)
        #expect(arm.status == 202)
        #expect(arm.body == "{\"requested\":\"arm\",\"run\":42}\n")
        let cancel = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/cancel", headers: paired)
        #expect(cancel.status == 202)
        #expect(undo.requests == [.preview(run: 42), .arm(run: 42), .cancel])
    }

    @Test("Arming before the preview of that run, or while another undo waits or runs, is refused with 409")
    func outOfStep() throws {
        let undo = UndoRecorder()
        let live = SnapshotBox(makeUndoSnapshot())
        let pairings = PairedBrowsers(folder: nil)
        let server = try makeServer(undo: undo, live: live, pairings: pairings)
        let paired = pairedHeaders(pairings, port: server.port)
        func post(_ path: String) throws -> Int {
            try HTTPTestClient.request(port: server.port, method: "POST", path: path, headers: paired).status
        }
        #expect(try post("/api/undo?run=42") == 409)
        live.current = makeUndoSnapshot(.checking)
        #expect(try post("/api/undo?run=42") == 409)
        live.current = makeUndoSnapshot(.previewed, run: 41)
        #expect(try post("/api/undo?run=42") == 409)
        for phase: StatusSnapshot.Undo.Phase in [.armed, .confirmed] {
            live.current = makeUndoSnapshot(phase)
            #expect(try post("/api/undo/preview?run=41") == 409, "\(phase)")
            #expect(try post("/api/undo?run=42") == 409, "\(phase)")
        }
        #expect(undo.requests.isEmpty)
    }

    @Test(
        "A missing or malformed run number answers 400",
        arguments: [
            "", "?run=", "?run=0", "?run=-3", "?run=4x",
            "?run=%2042", "?run=99999999999999999999", "?other=42",
        ])
    func badRun(query: String) throws {
        let undo = UndoRecorder()
        let pairings = PairedBrowsers(folder: nil)
        let server = try makeServer(undo: undo, pairings: pairings)
        let paired = pairedHeaders(pairings, port: server.port)
        for path in ["/api/undo/preview", "/api/undo"] {
            let response = try HTTPTestClient.request(
                port: server.port, method: "POST", path: path + query, headers: paired)
            #expect(response.status == 400, "\(path)\(query)")
        }
        #expect(undo.requests.isEmpty)
        #expect(UndoRequest.runNumber("42") == 42)
    }

    @Test("Only POST, only from the page's own origin, only with the password: else nothing is handed on")
    func guards() throws {
        let undo = UndoRecorder()
        let server = try makeServer(undo: undo)
        for method in ["GET", "HEAD", "PUT"] {
            for path in ["/api/undo/preview?run=42", "/api/undo?run=42", "/api/undo/cancel"] {
                let response = try HTTPTestClient.request(port: server.port, method: method, path: path)
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.header("Allow") == "POST")
            }
        }
        let crossSite = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/preview?run=42",
            headers: [("Origin", "http://evil.example")])
        #expect(crossSite.status == 403)
        let body = String(repeating: "x", count: 1025)
        let large = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/preview?run=42", body: body)
        #expect(large.status == 413)
        #expect(undo.requests.isEmpty)

        let pairings = PairedBrowsers(folder: nil)
        let guarded = try makeServer(password: Self.password, undo: undo, pairings: pairings)
        let paired = pairedHeaders(pairings, port: guarded.port)
        let anonymous = try HTTPTestClient.request(
            port: guarded.port, method: "POST", path: "/api/undo/preview?run=42", headers: paired)
        #expect(anonymous.status == 401)
        #expect(undo.requests.isEmpty)
        // The password without a paired browser: not enough to change anything.
        let unpaired = try HTTPTestClient.request(
            port: guarded.port, method: "POST", path: "/api/undo/preview?run=42",
            headers: Self.authorization + Array(paired.suffix(2)))
        #expect(unpaired.status == 403)
        #expect(unpaired.body.contains("press the button on the box"))
        #expect(undo.requests.isEmpty)
        let allowed = try HTTPTestClient.request(
            port: guarded.port, method: "POST", path: "/api/undo/preview?run=42", headers: Self.authorization + paired)
        #expect(allowed.status == 202)
        #expect(undo.requests == [.preview(run: 42)])
    }

    @Test("Wrong passwords lock the undo out like everything else: 429, even with the right one")
    func attemptLimit() throws {
        let undo = UndoRecorder()
        let server = try makeServer(password: Self.password, undo: undo)
        let wrong = [("Authorization", HTTPTestClient.basicAuthorization(user: "", password: "guess"))]
        for _ in 1...PasswordAttempts.freeFailures {
            let response = try HTTPTestClient.request(
                port: server.port, method: "POST", path: "/api/undo/preview?run=42", headers: wrong)
            #expect(response.status == 401)
        }
        let locked = try HTTPTestClient.request(
            port: server.port, method: "POST", path: "/api/undo/preview?run=42", headers: Self.authorization)
        #expect(locked.status == 429)
        #expect(undo.requests.isEmpty)
    }
}

import Glibc
import TestSupport
import Testing

private let chromiumPath = "/usr/bin/chromium"
private let chromiumMissing =
    access(chromiumPath, X_OK) == 0 ? nil : "Chromium is not installed at \(chromiumPath): run Deploy/test.sh"

/// Debian's headless Chromium, against the real server: the only check that the page's script and its
/// Content-Security-Policy work together. Without Chromium these tests fail (`TestRequirement`).
@Suite(
    "The page in a real browser",
    .enabled(if: TestRequirement.runs(missing: chromiumMissing), "\(chromiumMissing ?? "")"), .timeLimit(.minutes(10)))
struct BrowserTests {
    @Test("Headless Chromium runs the page's script and shows the state, the LEDs and the escaped remote name")
    func dom() throws {
        try #require(chromiumMissing == nil, "\(chromiumMissing ?? "")")
        let server = try makeServer()
        let output = try runChromium(["--dump-dom", "http://127.0.0.1:\(server.port)/"])
        let start = try #require(output.firstRange(of: "<html"), "no DOM in Chromium's output:\n\(output)")
        let dom = String(output[start.lowerBound...])
        // Set by the script after its first fetch of /api/status: the CSP let it run and connect.
        #expect(dom.contains(#"data-live="1""#), "the page's script did not update the page")
        #expect(dom.contains(#"id="state" class="state state-idle" data-state="idle">Idle</h1>"#))
        #expect(dom.contains(#"id="led-power" class="led led-power lit""#))
        #expect(dom.contains(#"id="led-sync" class="led led-sync unlit""#))
        #expect(dom.contains(#"id="led-error" class="led led-error lit""#))
        #expect(dom.contains(#"<span class="remote-name">icloud</span>"#))
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"))
        #expect(!dom.contains("<script>alert(1)"))
        #expect(dom.contains(#"<span id="contacts">812</span>"#))
        #expect(dom.contains("Live: updated every second"))
    }

    @Test("The script draws the restore points and the undo's step from the JSON, names only behind the password")
    func undoDom() throws {
        try #require(chromiumMissing == nil, "\(chromiumMissing ?? "")")
        let server = try makeServer(snapshot: makeUndoSnapshot(.previewed))
        let output = try runChromium(["--dump-dom", "http://127.0.0.1:\(server.port)/"])
        let start = try #require(output.firstRange(of: "<html"), "no DOM in Chromium's output:\n\(output)")
        let dom = String(output[start.lowerBound...])
        // Set after the script's render(): an error in drawing the runs or the undo would leave it out.
        #expect(dom.contains(#"data-live="1""#), "the page's script did not update the page")
        #expect(dom.contains(#"<li class="run kind-sync" data-run="42">"#))
        #expect(dom.contains(#"action="/api/undo/preview?run=42""#))
        #expect(dom.contains("Sync with Work \"Team\""))
        #expect(!dom.contains("<script>alert(1)"))
        #expect(dom.contains(#"data-phase="previewed""#))
        #expect(dom.contains("Undoing run 42 would change the contacts: 3 put back, 1 deleted. Undo it?"))
        #expect(!dom.contains("Lovelace"))
    }

    @Test("The script draws a damaged store's recover offer and the recover waiting for the button from the JSON")
    func recoverDom() throws {
        try #require(chromiumMissing == nil, "\(chromiumMissing ?? "")")
        let server = try makeServer(snapshot: makeDamagedSnapshot(.armed))
        let output = try runChromium(["--dump-dom", "http://127.0.0.1:\(server.port)/"])
        let start = try #require(output.firstRange(of: "<html"), "no DOM in Chromium's output:\n\(output)")
        let dom = String(output[start.lowerBound...])
        // Set after the script's render(): an error in drawing the offer or the recover would leave it out.
        #expect(dom.contains(#"data-live="1""#), "the page's script did not update the page")
        #expect(dom.contains(#"<div id="recover" class="recover" data-copy="1699990000">"#))
        #expect(dom.contains("The store is damaged. Recovering puts its newest good safety copy in its place"))
        #expect(dom.contains(#"action="/api/recover" hidden="">"#))
        // The script's words, with the copy's time in the browser's zone where the server wrote UTC.
        #expect(dom.contains(#"<p id="undo-text">To recover the store from the copy of "#))
        #expect(!dom.contains("the copy of 2023-11-14 19:26 UTC, hold"))
        #expect(dom.contains(", hold the button on the box for 3 seconds"))
    }

    @Test("A phone-sized screenshot of the page is saved as an artefact")
    func screenshot() throws {
        try #require(chromiumMissing == nil, "\(chromiumMissing ?? "")")
        // Times near now, so the artefact reads like a real box.
        var snapshot = makeSnapshot(state: "attention")
        let now = Int64(time(nil))
        snapshot.lastSync = now - 720
        snapshot.nextSync = now + 180
        snapshot.remotes[0].lastSync = now - 720
        snapshot.events[0].time = now - 60
        snapshot.events[1].time = now - 3600
        let server = try makeServer(snapshot: snapshot)
        let folder = repositoryRoot + "/.build/artefacts"
        mkdir(repositoryRoot + "/.build", 0o755)
        mkdir(folder, 0o755)
        let path = folder + "/status-page.png"
        unlink(path)
        _ = try runChromium([
            "--screenshot=\(path)", "--window-size=412,915", "--hide-scrollbars",
            "http://127.0.0.1:\(server.port)/",
        ])
        let png = readFile(path)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG: \(path)")
        #expect(png.count > 10_000, "a screenshot of \(png.count) bytes is too small to show the page")
        print("Status page screenshot: \(path)")
    }

    /// Runs headless Chromium with a throw-away profile; returns what it printed. Killed after 30 s.
    private func runChromium(_ arguments: [String]) throws -> String {
        let folder = try TemporaryDirectory()
        let profile = try folder.folder("profile")
        let log = folder.file("chromium.log")
        let chromium = try ChildProcess(
            path: chromiumPath,
            arguments: [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--virtual-time-budget=3000", "--user-data-dir=\(profile)",
            ] + arguments,
            logPath: log)
        var waited = 0
        while chromium.isRunning, waited < 30_000 {
            usleep(50_000)
            waited += 50
        }
        let finished = !chromium.isRunning
        chromium.terminate(grace: 2)
        let output = String(decoding: readFile(log), as: UTF8.self)
        guard finished else { throw HTTPTestFailure(description: "Chromium still running after 30 s:\n\(output)") }
        return output
    }

    private func readFile(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
        }
    }
}

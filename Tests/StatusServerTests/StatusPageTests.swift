import SafeText
import Testing

@testable import StatusServer

@Suite("The status page")
struct StatusPageTests {
    @Test("The page as served already shows the current values, under stable ids")
    func serverSideValues() throws {
        let server = try makeServer()
        let response = try get(server, "/")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let page = response.body
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        #expect(page.contains(#"<h1 id="state" class="state state-idle" data-state="idle">Idle</h1>"#))
        #expect(page.contains(#"<p id="summary">Idle: 812 contacts in sync</p>"#))
        #expect(page.contains(#"<li id="led-power" class="led led-power lit">"#))
        #expect(page.contains(#"<li id="led-sync" class="led led-sync unlit">"#))
        #expect(page.contains(#"<li id="led-error" class="led led-error lit">"#))
        #expect(page.contains(#"<span class="pattern">3 flashes</span>"#))
        #expect(page.contains(#"<span id="contacts">812</span>"#))
        #expect(page.contains(#"id="last-sync""#) && page.contains(#"data-unix="1700000000""#))
        #expect(page.contains("2023-11-14 22:13 UTC)</time>"))
        #expect(page.contains(#"<button id="sync-now" type="submit">Sync now</button>"#))
        #expect(page.contains(#"<ul id="remotes">"#))
        #expect(
            page.contains(#"<li class="remote result-ok"><div class="remote-head"><span class="remote-name">icloud"#))
        #expect(
            page.contains("1 sent &middot; 2 received &middot; 3 updated &middot; 4 deleted &middot; 5 conflicts</p>"))
        #expect(page.contains(#"<p class="counts">2 errors</p>"#))
        #expect(page.contains(#"<ol id="events">"#))
        #expect(page.contains(#"<p id="version">ContactBox <span class="version">1.2.3</span>"#))
        #expect(page.contains(#"<span class="build">abc1234</span>"#))
        #expect(page.contains(#"<div id="advice" class="advice" role="alert" hidden>"#))
    }

    @Test("The store's safety copies: each with its time and size, newest first, and words where there is none")
    func copies() throws {
        var snapshot = makeSnapshot()
        snapshot.copies = [
            StatusSnapshot.Copy(madeAt: 1_700_000_000, bytes: 339_456_789),
            StatusSnapshot.Copy(madeAt: 1_699_913_600, bytes: 830_001),
        ]
        let page = try get(try makeServer(snapshot: snapshot), "/").body
        #expect(page.contains(#"<ul id="copies" class="copies">"#))
        #expect(page.contains(#"<li class="copy"><time data-empty="" data-unix="1700000000""#))
        #expect(page.contains(#"&middot; <span class="copy-size">339.4 MB</span></li>"#))
        #expect(page.contains(#"<span class="copy-size">831 KB</span>"#))
        let json = try TestJSON.parse(get(try makeServer(snapshot: snapshot), "/api/status").body)
        #expect(json["copies"]?[0] == .object([("made", .number("1700000000")), ("bytes", .number("339456789"))]))
        snapshot.copies = []
        let none = try get(try makeServer(snapshot: snapshot), "/").body
        #expect(none.contains(#"<li class="empty">\#(StatusPage.noCopies)</li>"#))
    }

    @Test("Every piece of text from the snapshot is HTML-escaped")
    func escaping() throws {
        let page = render(makeSnapshot())
        #expect(page.contains("Work &quot;Team&quot;\\u{A}&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"))
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("Server said &quot;no&quot;\\u{9}then\\u{1}&lt;b&gt;bold&lt;/b&gt;"))
        #expect(page.contains("Sync of &lt;i&gt;work&lt;/i&gt; failed"))
        #expect(!page.contains("<b>bold") && !page.contains("<i>work"))
        // Exactly one script element: the page's own.
        #expect(page.split(separator: "<script", omittingEmptySubsequences: false).count == 2)
    }

    @Test("Control characters in an event, a message or a name are shown as \\u{..}, never put in the page")
    func controlCharacters() throws {
        var snapshot = makeSnapshot()
        snapshot.events = [.init(time: 1, level: "error", message: "Card \u{1B}[2J\u{7F}\u{85}\u{2029}\u{2066}x")]
        let page = render(snapshot)
        #expect(page.contains(#"<span class="message">Card \u{1B}[2J\u{7F}\u{85}\u{2029}\u{2066}x</span>"#))
        // Only the page's own line breaks and indentation remain.
        #expect(!page.unicodeScalars.contains { isUnprintable($0) && $0 != "\n" })
    }

    @Test("Markup in state, LED and version fields cannot leave their attribute or element")
    func escapingEverywhere() throws {
        var snapshot = makeSnapshot()
        snapshot.state = "x\" onmouseover=\"alert(1)"
        snapshot.leds[0].name = "p\"><img src=x>"
        snapshot.version = "</p><script>"
        let page = render(snapshot)
        #expect(!page.contains("\" onmouseover=\""))
        #expect(!page.contains("<img"))
        #expect(!page.contains("</p><script>"))
    }

    @Test("When the box needs attention, the advice is shown")
    func advice() throws {
        let page = render(makeSnapshot(state: "attention"))
        #expect(page.contains(#"class="state state-attention" data-state="attention">Needs attention</h1>"#))
        #expect(page.contains(#"<div id="advice" class="advice" role="alert"><strong id="attention">Login refused."#))
        #expect(page.contains(#"<span id="advice-text">Check the app password of icloud</span>"#))
    }

    @Test("Events are listed newest first, as the snapshot gives them")
    func eventsNewestFirst() throws {
        let page = render(makeSnapshot())
        let newest = try #require(page.firstRange(of: "Sync of &lt;i&gt;work"))
        let oldest = try #require(page.firstRange(of: "Started"))
        #expect(newest.lowerBound < oldest.lowerBound)
    }

    @Test("The page loads nothing from elsewhere")
    func selfContained() throws {
        let page = render(makeSnapshot())
        #expect(!page.contains("http://") && !page.contains("https://"))
        #expect(!page.contains(" src="))
        #expect(!page.contains("innerHTML"))
    }

    @Test("Every response carries the security headers, errors too")
    func securityHeaders() throws {
        let server = try makeServer()
        for path in ["/", "/api/status", "/metrics", "/nowhere"] {
            let response = try get(server, path)
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("script-src 'sha256-") && !policy.contains("'unsafe-inline'; connect"))
            #expect(policy.contains("connect-src 'self'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Referrer-Policy") == "same-origin")
            #expect(response.header("X-Frame-Options") == "DENY")
        }
    }

    @Test("Relative times are written in words")
    func times() throws {
        let now: Int64 = 1_700_000_000
        for (seconds, words) in [
            (now - 10, "just now"), (now - 600, "10 min ago"), (now + 300, "in 5 min"), (now - 7200, "2 h ago"),
            (now - 3 * 86400, "3 days ago"),
        ] {
            var writer = ByteWriter(capacity: 16)
            UnixTime.writeRelative(seconds, now: now, into: &writer)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == words)
        }
        var writer = ByteWriter(capacity: 32)
        UnixTime.writeISO(1_700_000_000, into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "2023-11-14T22:13:20Z")
    }

    private func render(_ snapshot: StatusSnapshot) -> String {
        var writer = ByteWriter(capacity: 16384)
        StatusPage.render(snapshot, now: 1_700_000_600, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

import SystemSupport

/// `GET /`: one self-contained page (inline style and script, nothing fetched from elsewhere), readable on a phone.
///
/// The server writes the current values into the page, so it is complete without script; the script then fetches
/// `/api/status` every second and updates the same elements, which is how the LEDs blink in the browser. Every
/// piece of text from the snapshot goes through `ByteWriter.html`: remote names come from the configuration and
/// messages from servers.
///
/// Stable hooks for the script, the tests and people's own tools:
/// - `#state` (the big state line, class `state-<state>`, `data-state`), `#summary`, `#advice` (hidden unless
///   attention is needed) with `#attention` and `#advice-text`;
/// - `#leds` holding `#led-power`, `#led-sync`, `#led-error`, each with class `lit` or `unlit` and a `.pattern`;
/// - `#last-sync`, `#next-sync` (`<time>` with `data-unix`), `#contacts` (the count) and `#contacts-link`;
/// - `#copies`: one `li.copy` per safety copy of the store, newest first, with `time` and `.copy-size`;
/// - `#sync-form` and its button `#sync-now`, `#sync-result` ("Sync requested");
/// - `#remotes`: one `li.remote.result-<last_result>` per remote with `.remote-name`, `.kind`, `.result`,
///   `.counts`, `.remote-when`, `.message`;
/// - `#runs` and `#undo`: the restore points and the undo asked for (`StatusPage+Undo.swift`);
/// - `#pairing`: this browser's pairing with the box (`StatusPage+Pairing.swift`);
/// - `#setup`: adding an address book (`StatusPage+Setup.swift`); `#settings`: what a paired browser may change
///   (`StatusPage+Settings.swift`);
/// - `#events`, newest first: `li.event.level-<level>` with `time` and `.message`;
/// - `#version` with `.version` and `.build`; `#live` (whether the page is still updating).
enum StatusPage {
    static let contentType = "text/html; charset=utf-8"
    /// What `#copies` says before the first safety copy (the script writes the same).
    static let noCopies = "None yet: the box makes one a day when the contacts changed."

    /// The start of every page the box writes, up to its `<style>`: "TITLE · ContactBox".
    static func documentStart(title: String, into w: inout ByteWriter) {
        w.raw(
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <link rel="icon" href="data:,">
            <title>
            """)
        w.html(title)
        w.raw(" &middot; ContactBox</title>\n<style>")
    }

    static func render(_ snapshot: StatusSnapshot, now: Int64, into w: inout ByteWriter) {
        documentStart(title: stateLabel(snapshot.state), into: &w)
        w.raw(style)
        w.raw("</style>\n</head>\n<body>\n<main>\n<header>\n<p class=\"brand\">ContactBox</p>\n")
        w.raw("<h1 id=\"state\" class=\"state state-")
        w.html(snapshot.state)
        w.raw("\" data-state=\"")
        w.html(snapshot.state)
        w.raw("\">")
        w.html(stateLabel(snapshot.state))
        w.raw("</h1>\n<p id=\"summary\">")
        w.html(snapshot.summary)
        w.raw("</p>\n<div id=\"advice\" class=\"advice\" role=\"alert\"")
        if snapshot.attention == nil && snapshot.advice == nil { w.raw(" hidden") }
        w.raw("><strong id=\"attention\">")
        w.html(snapshot.attention.map(attentionLabel) ?? "")
        w.raw("</strong> <span id=\"advice-text\">")
        w.html(snapshot.advice ?? "")
        w.raw("</span></div>\n</header>\n")

        w.raw("<section aria-label=\"Front panel\">\n<ul id=\"leds\" class=\"leds\">\n")
        for led in snapshot.leds {
            w.raw("<li id=\"led-")
            w.html(led.name)
            w.raw("\" class=\"led led-")
            w.html(led.name)
            w.raw(led.lit ? " lit\">" : " unlit\">")
            w.raw("<span class=\"dot\"></span><span class=\"led-name\">")
            w.html(led.name)
            w.raw("</span> <span class=\"pattern\">")
            w.html(led.pattern)
            w.raw("</span></li>\n")
        }
        w.raw("</ul>\n</section>\n<section>\n<dl class=\"facts\">\n<dt>Last sync</dt><dd>")
        time(snapshot.lastSync, id: "last-sync", empty: "never", now: now, into: &w)
        w.raw("</dd>\n<dt>Next sync</dt><dd>")
        time(snapshot.nextSync, id: "next-sync", empty: "not planned", now: now, into: &w)
        w.raw("</dd>\n<dt>Contacts</dt><dd><span id=\"contacts\">")
        w.decimal(snapshot.contacts)
        w.raw(
            """
            </span> &middot; <a id="contacts-link" href="/contacts">see them</a></dd>
            <dt>Safety copies</dt><dd><ul id="copies" class="copies">

            """)
        for copy in snapshot.copies {
            w.raw("<li class=\"copy\">")
            time(copy.madeAt, id: nil, empty: "", now: now, into: &w)
            w.raw(" &middot; <span class=\"copy-size\">")
            w.html(ByteCount.text(copy.bytes))
            w.raw("</span></li>\n")
        }
        if snapshot.copies.isEmpty { w.raw("<li class=\"empty\">\(noCopies)</li>\n") }
        w.raw(
            """
            </ul></dd>
            </dl>
            <form id="sync-form" method="post" action="/api/sync"><button id="sync-now" type="submit">Sync now\
            </button> <span id="sync-result" role="status"></span></form>
            </section>
            <section>
            <h2>Address books</h2>
            <ul id="remotes">

            """)
        for remote in snapshot.remotes { self.remote(remote, now: now, into: &w) }
        if snapshot.remotes.isEmpty { w.raw("<li class=\"empty\">No address books configured.</li>\n") }
        w.raw("</ul>\n</section>\n")
        restorePoints(snapshot, now: now, into: &w)
        w.raw(pairingSection)
        w.raw(setupSection)
        w.raw(settingsSection)
        w.raw("<section>\n<h2>Events</h2>\n<ol id=\"events\">\n")
        for event in snapshot.events {
            w.raw("<li class=\"event level-")
            w.html(event.level)
            w.raw("\">")
            time(event.time, id: nil, empty: "", now: nil, into: &w)
            w.raw(" <span class=\"message\">")
            w.html(event.message)
            w.raw("</span></li>\n")
        }
        if snapshot.events.isEmpty { w.raw("<li class=\"empty\">Nothing yet.</li>\n") }
        w.raw("</ol>\n</section>\n<footer>\n<p id=\"version\">ContactBox <span class=\"version\">")
        w.html(snapshot.version)
        w.raw("</span> &middot; build <span class=\"build\">")
        w.html(snapshot.build)
        w.raw("</span></p>\n<p id=\"live\">As of ")
        UnixTime.writeUTC(now, into: &w)
        w.raw("</p>\n</footer>\n</main>\n<script>")
        w.raw(script)
        w.raw("</script>\n</body>\n</html>\n")
    }

    private static func remote(_ remote: StatusSnapshot.Remote, now: Int64, into w: inout ByteWriter) {
        w.raw("<li class=\"remote result-")
        w.html(remote.lastResult)
        w.raw("\"><div class=\"remote-head\"><span class=\"remote-name\">")
        w.html(remote.name)
        w.raw("</span> <span class=\"kind\">")
        w.html(remote.kind)
        w.raw("</span> <span class=\"result\">")
        w.html(resultLabel(remote.lastResult))
        w.raw("</span></div>\n<p class=\"counts\">")
        // Only what changed, so a quiet remote reads "No changes" rather than a row of zeros.
        let synced = remote.counts
        let counts = [
            (synced.uploaded, "sent", "sent"), (synced.downloaded, "received", "received"),
            (synced.updated, "updated", "updated"), (synced.deleted, "deleted", "deleted"),
            (synced.conflicts, "conflict", "conflicts"), (synced.errors, "error", "errors"),
        ].filter { $0.0 > 0 }
        for (index, (count, singular, plural)) in counts.enumerated() {
            if index > 0 { w.raw(" &middot; ") }
            w.decimal(count)
            w.raw(" ")
            w.raw(count == 1 ? singular : plural)
        }
        if counts.isEmpty { w.raw("No changes") }
        w.raw("</p>\n<p class=\"remote-when\">Last sync ")
        time(remote.lastSync, id: nil, empty: "never", now: now, into: &w)
        w.raw("</p>\n")
        if let message = remote.message {
            w.raw("<p class=\"message\">")
            w.html(message)
            w.raw("</p>\n")
        }
        w.raw("</li>\n")
    }

    /// `<time data-unix="...">3 min ago (2024-05-01 09:05 UTC)</time>`; the script rewrites it in local time.
    /// Without `now` the relative part is left out (the event log is read as a list of moments).
    static func time(_ seconds: Int64?, id: String?, empty: String, now: Int64?, into w: inout ByteWriter) {
        w.raw("<time")
        if let id {
            w.raw(" id=\"")
            w.raw(id)
            w.raw("\"")
        }
        w.raw(now == nil ? " data-short=\"1\"" : "")
        w.raw(" data-empty=\"")
        w.html(empty)
        w.raw("\" data-unix=\"")
        guard let seconds else {
            w.raw("\">")
            w.html(empty)
            w.raw("</time>")
            return
        }
        w.decimal(seconds)
        w.raw("\" datetime=\"")
        UnixTime.writeISO(seconds, into: &w)
        w.raw("\">")
        guard let now else {
            UnixTime.writeUTC(seconds, into: &w)
            w.raw("</time>")
            return
        }
        UnixTime.writeRelative(seconds, now: now, into: &w)
        w.raw(" (")
        UnixTime.writeUTC(seconds, into: &w)
        w.raw(")</time>")
    }

    /// The words for each state and result; the script has the same table (`STATES`, `RESULTS`).
    static func stateLabel(_ state: String) -> String {
        switch state {
        case "starting": "Starting"
        case "idle": "Idle"
        case "setup": "Needs setup"
        case "syncing": "Syncing"
        case "offline": "Offline"
        case "attention": "Needs attention"
        case "stopping": "Stopping"
        default: state
        }
    }

    static func resultLabel(_ result: String) -> String {
        switch result {
        case "ok": "OK"
        case "failed": "Failed"
        case "deletions_held": "Deletions held"
        case "interrupted": "Interrupted"
        case "never": "Not synced yet"
        default: result
        }
    }

    static func attentionLabel(_ attention: String) -> String {
        switch attention {
        case "login": "Login refused."
        case "unreachable": "Server unreachable."
        case "deletions_held": "Deletions held back."
        case "storage": "Storage problem."
        default: attention
        }
    }
}

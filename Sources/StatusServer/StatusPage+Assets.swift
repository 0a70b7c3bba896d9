/// The page's inline style and script. Inline because the page must work from the box alone (no network, no CDN)
/// in one request, and the Content-Security-Policy allows inline code but nothing from elsewhere. The script only
/// ever sets `textContent` and attributes, never `innerHTML`, so text from the JSON cannot become markup.
extension StatusPage {
    /// What the status page and the contacts' pages share: colours, type, cards and buttons.
    static let baseStyle = """
        :root{color-scheme:light dark;--bg:#f5f6f8;--card:#fff;--text:#1d2127;--muted:#616a75;--line:#e2e5e9;\
        --accent:#2563eb;--ok:#15803d;--warn:#b45309;--bad:#c0262d;--power:#22c55e;--sync:#3b82f6;--error:#ef4444}
        @media (prefers-color-scheme:dark){:root{--bg:#101317;--card:#181d23;--text:#e5e8ec;--muted:#98a1ac;\
        --line:#2a3139;--accent:#4f8ff7;--ok:#4ade80;--warn:#fbbf24;--bad:#f87171}}
        *{box-sizing:border-box}
        [hidden]{display:none!important}
        body{margin:0;background:var(--bg);color:var(--text);-webkit-text-size-adjust:100%;\
        font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif}
        main{max-width:40rem;margin:0 auto;padding:1.25rem 1rem}
        .brand{margin:0;color:var(--muted);font-size:.8rem;font-weight:600;letter-spacing:.12em;\
        text-transform:uppercase}
        .state{margin:.15rem 0 .25rem;font-size:2.5rem;line-height:1.1;font-weight:700}
        .state-idle{color:var(--ok)}.state-syncing,.state-setup{color:var(--accent)}.state-offline{color:var(--warn)}
        .state-attention{color:var(--bad)}
        #summary{margin:0 0 1rem;font-size:1.1rem}
        .advice{margin:0 0 1rem;padding:.75rem 1rem;border-left:4px solid var(--bad);border-radius:.5rem;\
        background:var(--card)}
        section{margin:0 0 1rem;padding:1rem;border:1px solid var(--line);border-radius:.75rem;background:var(--card)}
        h2{margin:0 0 .5rem;color:var(--muted);font-size:.95rem;font-weight:600}
        dt{color:var(--muted)}dd{margin:0}
        button{min-height:44px;padding:.65rem 1.4rem;border:0;border-radius:.6rem;background:var(--accent);color:#fff;\
        font:inherit;font-weight:600;cursor:pointer}
        button:disabled{opacity:.6}
        button.secondary{min-height:36px;padding:.35rem .9rem;background:var(--line);color:var(--text)}
        .empty{color:var(--muted)}
        footer{padding:.25rem 0 2rem;color:var(--muted);font-size:.85rem;text-align:center}
        footer p{margin:.2rem 0}

        """

    static let style =
        baseStyle + """
            .leds{display:grid;grid-template-columns:repeat(3,1fr);gap:.5rem;margin:0;padding:0;list-style:none}
            .led{display:grid;grid-template-columns:auto 1fr;align-items:center;column-gap:.55rem}
            .led-power{--c:var(--power)}.led-sync{--c:var(--sync)}.led-error{--c:var(--error)}
            .dot{grid-row:span 2;width:1.15rem;height:1.15rem;border:2px solid var(--c);border-radius:50%;opacity:.4}
            .led.lit .dot{background:var(--c);opacity:1;box-shadow:0 0 .65rem var(--c)}
            .led-name{font-weight:600;text-transform:capitalize;line-height:1.2}
            .pattern{color:var(--muted);font-size:.8rem;line-height:1.2}
            .facts{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem;margin:0 0 1rem}
            .copies{list-style:none;margin:0;padding:0}.copies .empty{color:var(--muted)}
            #sync-result{margin-left:.75rem;color:var(--muted)}
            #remotes,#events,#runs,#browsers{margin:0;padding:0;list-style:none}
            #pairing form{margin:.5rem 0 0}#pair-code{min-height:36px;padding:.3rem .5rem;font:inherit}
            #pairing-result{margin:.5rem 0 0;color:var(--bad)}#pairing-result:empty{display:none}
            #setup label,#setup legend{display:block;margin:.5rem 0 .15rem;color:var(--muted);font-size:.9rem}
            #setup fieldset{margin:0;padding:0;border:0}#setup .setup-provider{margin:.2rem 0;color:var(--text);font-size:1rem}
            #setup input:not([type]),#setup input[name=address],#setup input[type=password]{width:100%;min-height:40px;\
            padding:.35rem .5rem;font:inherit}#setup-signin p{margin:.5rem 0}
            #setup-help,#setup-wire{margin:.5rem 0;color:var(--muted);font-size:.9rem}#setup form>button{margin-top:.75rem}
            #setup-books{margin:0;padding:0;list-style:none}.setup-book{padding:.4rem 0;border-top:1px solid var(--line);\
            overflow-wrap:anywhere}#setup-status{margin:.5rem 0 0}#setup-status:empty{display:none}
            .setting{margin:0 0 .75rem}.setting label{display:block;color:var(--muted);font-size:.9rem}
            #interval,#box-name,#settings input,.conflict{min-height:36px;padding:.3rem .5rem;font:inherit}
            .note{display:block;color:var(--muted);font-size:.85rem}
            .remote-change{flex-basis:100%}.remote-change summary{cursor:pointer;color:var(--accent)}
            .remote-change form,.remote-change label{margin:.4rem 0}.remove-confirm{margin:.5rem 0 0;color:var(--bad)}
            .remove-confirm button{margin:.4rem .5rem 0 0}button.remove-yes{background:var(--bad);color:#fff}
            #settings-remotes,#settings-problems{margin:0;padding:0;list-style:none}
            .setting-remote{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem;padding:.5rem 0;\
            border-top:1px solid var(--line);overflow-wrap:anywhere}.setting-remote .result{margin-left:auto}
            .setting-remote .fixed,.problem{color:var(--muted);font-size:.85rem}.problem{color:var(--warn)}
            #settings-result{margin:.5rem 0 0}#settings-result:empty{display:none}
            .browser{padding:.5rem 0;border-top:1px solid var(--line);font-size:.92rem;overflow-wrap:anywhere}
            .browser time{color:var(--muted)}.browser.this .browser-address{font-weight:600}
            .run{padding:.65rem 0;border-top:1px solid var(--line)}.run:first-child{padding-top:0;border-top:0}
            .run-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem}
            .run-what{font-weight:600;overflow-wrap:anywhere}.run time{color:var(--muted);font-size:.85rem}
            .run-store,.run-remote{margin:.2rem 0 0;color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
            .undo-form{margin:.35rem 0 0}
            button.undo-run{min-height:36px;padding:.35rem .9rem;background:var(--line);color:var(--text)}
            .undo,.recover{margin:0 0 1rem;padding:.75rem 1rem;border-left:4px solid var(--warn);border-radius:.5rem;\
            background:var(--bg)}.recover{border-left-color:var(--bad)}
            #recover-text{margin:0;overflow-wrap:anywhere}#recover-form{margin:.5rem 0 0}
            .undo-armed{border-left-color:var(--bad)}.undo-done{border-left-color:var(--ok)}
            .undo form{display:inline-block;margin:.5rem .5rem 0 0}
            #undo-text,#undo-result{margin:0;overflow-wrap:anywhere}#undo-result{color:var(--bad)}
            #undo-contacts{margin:.3rem 0 0;padding-left:1.2rem}#undo-contacts .action{color:var(--muted)}
            .remote{padding:.65rem 0;border-top:1px solid var(--line)}.remote:first-child{padding-top:0;border-top:0}
            .remote-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem}
            .remote-name{font-weight:600;overflow-wrap:anywhere}
            .kind{color:var(--muted);font-size:.85rem}
            .result{margin-left:auto;padding:0 .55rem;border-radius:1rem;background:var(--line);font-size:.85rem;\
            font-weight:600}
            .result-ok .result{color:var(--ok)}.result-failed .result,.result-deletions_held .result{color:var(--bad)}
            .result-interrupted .result{color:var(--warn)}
            .counts,.remote-when{margin:.2rem 0 0;color:var(--muted);font-size:.9rem}
            .remote .message{margin:.2rem 0 0;font-size:.9rem;overflow-wrap:anywhere}
            .event{display:flex;gap:.75rem;padding:.3rem 0;border-top:1px solid var(--line);font-size:.92rem}
            .event:first-child{border-top:0}
            .event time{color:var(--muted);white-space:nowrap;font-variant-numeric:tabular-nums}
            .event .message{overflow-wrap:anywhere}
            .level-warning .message{color:var(--warn)}.level-error .message{color:var(--bad)}
            #live.stale{color:var(--bad)}
            """

    static let script = """
        "use strict";
        (function () {
          var STATES = {starting: "Starting", idle: "Idle", setup: "Needs setup", syncing: "Syncing", offline: "Offline",
            attention: "Needs attention", stopping: "Stopping"};
          var RESULTS = {ok: "OK", failed: "Failed", deletions_held: "Deletions held", interrupted: "Interrupted",
            never: "Not synced yet"};
          var ATTENTION = {login: "Login refused.", unreachable: "Server unreachable.",
            deletions_held: "Deletions held back.", storage: "Storage problem."};
          var byId = function (id) { return document.getElementById(id); };
          var label = function (table, key) {
            return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : key;
          };
          var shown = "";

          function element(tag, className, text) {
            var node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined) node.textContent = text;
            return node;
          }
          function relative(seconds, now) {
            var difference = now - seconds, distance = Math.abs(difference), text;
            if (distance < 45) return "just now";
            if (distance < 5400) text = Math.round(distance / 60) + " min";
            else if (distance < 129600) text = Math.round(distance / 3600) + " h";
            else text = Math.round(distance / 86400) + " days";
            return difference < 0 ? "in " + text : text + " ago";
          }
          function paintTime(node, now) {
            var unix = node.getAttribute("data-unix");
            if (!unix) {
              node.textContent = node.getAttribute("data-empty");
              node.removeAttribute("datetime");
              return;
            }
            var date = new Date(Number(unix) * 1000);
            node.setAttribute("datetime", date.toISOString());
            node.title = date.toLocaleString();
            var clock = date.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
            var today = new Date(now * 1000);
            var absolute = date.toDateString() === today.toDateString() ? clock :
              date.toLocaleDateString([], {month: "short", day: "numeric",
                year: date.getFullYear() === today.getFullYear() ? undefined : "numeric"}) + ", " + clock;
            node.textContent = node.hasAttribute("data-short") ? absolute :
              relative(Number(unix), now) + " (" + absolute + ")";
          }
          function paintTimes() {
            var now = Date.now() / 1000;
            document.querySelectorAll("time[data-unix]").forEach(function (node) { paintTime(node, now); });
          }
          function timeNode(unix, empty, short) {
            var node = element("time");
            if (short) node.setAttribute("data-short", "1");
            node.setAttribute("data-empty", empty);
            node.setAttribute("data-unix", unix === null ? "" : String(unix));
            return node;
          }
          function remoteItem(remote) {
            var item = element("li", "remote result-" + remote.last_result);
            var head = element("div", "remote-head");
            head.append(element("span", "remote-name", remote.name), " ", element("span", "kind", remote.kind), " ",
              element("span", "result", label(RESULTS, remote.last_result)));
            // The same words as the server writes: only what changed, "No changes" otherwise.
            var counts = [[remote.uploaded, "sent", "sent"], [remote.downloaded, "received", "received"],
              [remote.updated, "updated", "updated"], [remote.deleted, "deleted", "deleted"],
              [remote.conflicts, "conflict", "conflicts"], [remote.errors, "error", "errors"]]
              .filter(function (count) { return count[0] > 0; })
              .map(function (count) { return count[0] + " " + (count[0] === 1 ? count[1] : count[2]); });
            var when = element("p", "remote-when", "Last sync ");
            when.append(timeNode(remote.last_sync, "never", false));
            item.append(head, element("p", "counts", counts.length ? counts.join(" \\u00b7 ") : "No changes"), when);
            if (remote.message !== null) item.append(element("p", "message", remote.message));
            return item;
          }
          // ByteCount.text's words.
          function size(bytes) {
            return bytes >= 1e6 ? (Math.floor(bytes / 1e5) / 10).toFixed(1) + " MB" : Math.ceil(bytes / 1000) + " KB";
          }
          function copyItem(copy) {
            var item = element("li", "copy");
            item.append(timeNode(copy.made, "", false), " \\u00b7 ", element("span", "copy-size", size(copy.bytes)));
            return item;
          }
          function countList(counts) {
            var parts = counts.filter(function (count) { return count[0] > 0; })
              .map(function (count) { return count[0] + " " + count[1]; });
            return parts.length ? parts.join(" \\u00b7 ") : "none changed";
          }
          // The same words as StatusPage+Undo.swift.
          function runTitle(run) {
            var title = run.kind === "sync" ? "Sync with " + (run.remote === null ? "a removed remote" : run.remote) :
              run.kind.charAt(0).toUpperCase() + run.kind.slice(1);
            return run.note === null ? title : title + " (" + run.note + ")";
          }
          function runItem(run) {
            var item = element("li", "run kind-" + run.kind);
            item.setAttribute("data-run", String(run.id));
            var head = element("div", "run-head");
            head.append(element("span", "run-what", runTitle(run)), " ", timeNode(run.started_at, "", false));
            item.append(head, element("p", "run-store", "Contacts: " + countList([[run.store.created, "created"],
              [run.store.updated, "updated"], [run.store.deleted, "deleted"]])));
            var remote = run.remote_counts;
            if (remote !== null) {
              item.append(element("p", "run-remote", (run.remote === null ? "Remote" : run.remote) + ": " +
                countList([[remote.uploaded, "sent"], [remote.downloaded, "received"], [remote.updated, "updated"],
                  [remote.deleted, "deleted"]])));
            }
            var form = element("form", "undo-form");
            form.method = "post";
            form.setAttribute("action", "/api/undo/preview?run=" + run.id);
            var button = element("button", "undo-run", "Undo this " + run.kind);
            button.type = "submit";
            button.setAttribute("data-run", String(run.id));
            form.append(button);
            item.append(form);
            return item;
          }
          var ACTIONS = {revived: "brought back", reverted: "put back", deleted: "deleted",
            "skipped-changed-since": "left alone: changed since"};
          function undoCounts(u) {
            var parts = [[u.revived, "brought back"], [u.reverted, "put back"], [u.deleted, "deleted"]]
              .filter(function (count) { return count[0] > 0; })
              .map(function (count) { return count[0] + " " + count[1]; });
            if (!parts.length) parts = ["no contact changed"];
            if (u.skipped > 0) parts.push(u.skipped + " left alone (changed since)");
            return parts.join(", ");
          }
          function undoText(u) {
            if (u.restore !== null) return restoreText(u);
            if (u.recover !== null) return recoverText(u);
            var run = "run " + u.run;
            switch (u.phase) {
              case "checking": return "Checking what undoing " + run + " would change\\u2026";
              case "previewed": return "Undoing " + run + " would change the contacts: " + undoCounts(u) + ". Undo it?";
              case "armed": return "To undo " + run + ", hold the button on the box for 3 seconds, until all lights " +
                "are on, then let go. A short press cancels; unconfirmed, it lapses by itself. It would change: " +
                undoCounts(u) + ".";
              case "confirmed": return "Undoing " + run + "\\u2026";
              case "done": return "Run " + u.run + " undone: " + undoCounts(u) + (u.undo_run === null ? "." :
                ". This undo is run " + u.undo_run + ", and can be undone too.");
              case "failed": return "The undo of " + run + " failed: " +
                (u.message === null ? "see the events" : u.message) + ".";
              case "cancelled": return "The undo of " + run + " was cancelled; nothing changed.";
              case "expired": return "The undo of " + run + " was not confirmed at the box in time; nothing changed.";
              default: return u.phase;
            }
          }
          function restoreText(u) {
            var who = u.restore;
            switch (u.phase) {
              case "armed": return "To restore " + who + ", hold the button on the box for 3 seconds, until all " +
                "lights are on, then let go. A short press cancels; unconfirmed, it lapses by itself.";
              case "confirmed": return "Restoring " + who + "\\u2026";
              case "done": return "Restored " + who + (u.undo_run === null ? "." :
                ". This restore is run " + u.undo_run + ", and can be undone.");
              case "failed": return "The restore of " + who + " failed: " +
                (u.message === null ? "see the events" : u.message) + ".";
              case "cancelled": return "The restore of " + who + " was cancelled; nothing changed.";
              case "expired": return "The restore of " + who + " was not confirmed at the box in time; nothing changed.";
              default: return u.phase;
            }
          }
          function localTime(unix) { return new Date(unix * 1000).toLocaleString(); }
          function recoverText(u) {
            var r = u.recover, copy = "the copy of " + localTime(r.copy_made);
            switch (u.phase) {
              case "armed": return "To recover the store from " + copy + ", hold the button on the box for 3 " +
                "seconds, until all lights are on, then let go. A short press cancels; unconfirmed, it lapses by itself.";
              case "confirmed": return "Recovering the store from " + copy + "\\u2026";
              case "done": return "Recovered from " + copy + ": " + (r.contacts || 0) + " contact" +
                (r.contacts === 1 ? "" : "s") + "; the damaged store is kept as " +
                (r.kept_as === null ? "a file beside it" : r.kept_as) + "; syncing to bring back changes since.";
              case "failed": return "The recover from " + copy + " failed: " +
                (u.message === null ? "see the events" : u.message) + ".";
              case "cancelled": return "The recover of the store was cancelled; nothing changed.";
              case "expired": return "The recover of the store was not confirmed at the box in time; nothing changed.";
              default: return u.phase;
            }
          }
          function recoverOffer(d) {
            return d.copy === null ? "The store is damaged, and no safety copy passes the check: there is none to " +
              "recover from, and nothing changed." : "The store is damaged. Recovering puts its newest good safety " +
              "copy in its place (the damaged store is kept), confirmed by a long press of the box's button; the " +
              "sync after it brings back what changed on the address books since the copy.";
          }
          function renderRecover(s) {
            var box = byId("recover"), d = s.damage;
            box.hidden = d === null;
            if (d === null) return;
            var made = d.copy === null ? "" : String(d.copy.made);
            byId("recover-text").textContent = recoverOffer(d);
            var busy = s.undo !== null && (s.undo.phase === "armed" || s.undo.phase === "confirmed");
            byId("recover-form").hidden = d.copy === null || busy;
            if (box.getAttribute("data-copy") === made) return;
            box.setAttribute("data-copy", made);
            var button = byId("recover-now");
            button.replaceChildren("Recover from the safety copy of ", timeNode(d.copy === null ? null : d.copy.made,
              "", true));
          }
          function renderUndo(u) {
            var box = byId("undo");
            box.hidden = u === null;
            if (u === null) return;
            box.className = "undo undo-" + u.phase;
            box.setAttribute("data-phase", u.phase);
            box.setAttribute("data-run", String(u.run));
            byId("undo-text").textContent = undoText(u);
            var contacts = byId("undo-contacts");
            contacts.replaceChildren.apply(contacts, u.contacts.map(function (contact) {
              var item = element("li", "", contact.name + " ");
              item.append(element("span", "action", label(ACTIONS, contact.action)));
              return item;
            }));
            var confirm = byId("undo-confirm-form");
            confirm.hidden = u.phase !== "previewed";
            confirm.setAttribute("action", "/api/undo?run=" + u.run);
            byId("undo-cancel-form").hidden = ["checking", "previewed", "armed"].indexOf(u.phase) < 0;
          }
          function eventItem(event) {
            var item = element("li", "event level-" + event.level);
            item.append(timeNode(event.time, "", true), " ", element("span", "message", event.message));
            return item;
          }
          function fill(id, items, emptyText) {
            var list = byId(id);
            list.replaceChildren.apply(list, items.length ? items : [element("li", "empty", emptyText)]);
          }
          function render(s) {
            openOnSetup(s);
            var state = byId("state");
            state.textContent = label(STATES, s.state);
            state.className = "state state-" + s.state;
            state.setAttribute("data-state", s.state);
            document.title = state.textContent + " \\u00b7 ContactBox";
            byId("summary").textContent = s.summary;
            byId("advice").hidden = s.attention === null && s.advice === null;
            byId("attention").textContent = s.attention === null ? "" : label(ATTENTION, s.attention);
            byId("advice-text").textContent = s.advice === null ? "" : s.advice;
            s.leds.forEach(function (led) {
              var node = byId("led-" + led.name);
              if (!node) return;
              node.className = "led led-" + led.name + (led.lit ? " lit" : " unlit");
              node.querySelector(".pattern").textContent = led.pattern;
            });
            byId("last-sync").setAttribute("data-unix", s.last_sync === null ? "" : String(s.last_sync));
            byId("next-sync").setAttribute("data-unix", s.next_sync === null ? "" : String(s.next_sync));
            byId("contacts").textContent = String(s.contacts);
            var lists = JSON.stringify([s.remotes, s.events, s.runs, s.copies]);
            if (lists !== shown) {
              shown = lists;
              fill("copies", s.copies.map(copyItem), "\(StatusPage.noCopies)");
              fill("remotes", s.remotes.map(remoteItem), "No address books configured.");
              fill("events", s.events.map(eventItem), "Nothing yet.");
              fill("runs", s.runs.map(runItem), "No changes to the contacts yet.");
            }
            renderRecover(s);
            renderUndo(s.undo);
            var version = byId("version");
            version.querySelector(".version").textContent = s.version;
            version.querySelector(".build").textContent = s.build;
          }
          function refreshSoon() {
            fetch("/api/status", {cache: "no-store"})
              .then(function (response) { return response.ok ? response.json() : null; })
              .then(function (s) { if (s) render(s); })
              .catch(function () {});
          }
          function refresh() {
            var live = byId("live");
            fetch("/api/status", {cache: "no-store"})
              .then(function (response) {
                if (!response.ok) throw new Error("HTTP " + response.status);
                return response.json();
              })
              .then(function (s) {
                render(s);
                live.textContent = "Live: updated every second";
                live.className = "";
                document.documentElement.setAttribute("data-live", "1");
              })
              .catch(function () {
                live.textContent = "Cannot reach the box; retrying";
                live.className = "stale";
              })
              .then(function () {
                paintTimes();
                setTimeout(refresh, 1000);
              });
          }
          byId("sync-form").addEventListener("submit", function (event) {
            event.preventDefault();
            var button = byId("sync-now"), result = byId("sync-result");
            button.disabled = true;
            fetch("/api/sync", {method: "POST"})
              .then(function (response) {
                result.textContent = response.status === 202 ? "Sync requested" :
                  "Sync refused (HTTP " + response.status + ")";
              })
              .catch(function () { result.textContent = "Cannot reach the box"; })
              .then(function () { setTimeout(function () { button.disabled = false; }, 2000); });
          });
          // "Undo this ...", "Undo it" and "Cancel": none changes a contact; the box's button has the last word.
          document.addEventListener("submit", function (event) {
            var form = event.target;
            if (!form.classList.contains("undo-form") && form.id !== "undo-confirm-form" &&
              form.id !== "undo-cancel-form" && form.id !== "recover-form") return;
            event.preventDefault();
            var result = byId("undo-result");
            result.textContent = "";
            fetch(form.getAttribute("action"), {method: "POST", headers: changeHeaders()})
              .then(function (response) {
                if (response.status === 202) return;
                return response.text().then(function (text) {
                  result.textContent = text || "Refused (HTTP " + response.status + ")";
                  // Forgotten meanwhile (Forget elsewhere, the button held 10 s): the page says so at once.
                  if (response.status === 403) checkPairing();
                });
              })
              .catch(function () { result.textContent = "Cannot reach the box"; })
              .then(refreshSoon);
          });
        \(pairingScript)\(settingsScript)\(setupScript)
          paintTimes();
          refresh();
        })();
        """
}

/// "Settings" on the page, for a paired browser: how often to sync, the box's name on the network, and each address
/// book with *Pause* or *Resume*; what /etc sets is shown, not offered. The server writes an empty, hidden section;
/// the script fills it from `/api/settings` once `/api/pairing` says paired, and posts each change as a form with
/// the settings' version and the browser's token.
///
/// Hooks: `#settings` (hidden until paired) with `#interval-form` and its `#interval` (a select), `#box-name-form`
/// and its `#box-name`, `#settings-remotes` (one `li.setting-remote` per address book, `data-name`, with a
/// `button.pause` or `button.resume`, or `.fixed`), `#settings-problems`, `#settings-result`.
extension StatusPage {
    static let settingsSection = """
        <section id="settings" hidden>
        <h2>Settings</h2>
        <form id="interval-form" class="setting"><label for="interval">Sync every</label> <select id="interval" \
        name="value"><option value="5m">5 minutes</option><option value="15m">15 minutes</option><option \
        value="30m">30 minutes</option><option value="1h">hour</option><option value="6h">6 hours</option><option \
        value="1d">day</option></select> <button class="secondary" type="submit">Save</button></form>
        <form id="box-name-form" class="setting"><label for="box-name">The box's name on the network</label> \
        <input id="box-name" name="value" maxlength="63" autocapitalize="none" spellcheck="false"> <button \
        class="secondary" type="submit">Save</button></form>
        <ul id="settings-remotes"></ul>
        <ul id="settings-problems"></ul>
        <p id="settings-result" role="alert"></p>
        </section>

        """

    static let settingsScript = """
          var settings = null;
          function fixedNote(fixed) { return fixed ? "set by the administrator in /etc/contactbox" : ""; }
          function settingRemote(r) {
            var item = element("li", "setting-remote" + (r.paused ? " paused" : ""));
            item.setAttribute("data-name", r.name);
            item.append(element("span", "remote-name", r.name), " ", element("span", "kind", r.location),
              " ", element("span", "result", r.paused ? "Paused" : "Syncing"), " ");
            if (r.fixed) {
              item.append(element("span", "fixed", fixedNote(true)));
            } else {
              var button = element("button", (r.paused ? "resume" : "pause") + " secondary", r.paused ? "Resume" :
                "Pause");
              button.type = "button";
              button.addEventListener("click", function () {
                changeSetting({action: r.paused ? "resume" : "pause", remote: r.name});
              });
              item.append(button);
            }
            return item;
          }
          function renderSettings(s) {
            settings = s;
            byId("settings").hidden = false;
            var interval = byId("interval");
            if (!Array.prototype.some.call(interval.options, function (o) { return o.value === s.sync.interval; })) {
              interval.append(new Option(s.sync.interval, s.sync.interval));
            }
            interval.value = s.sync.interval;
            interval.disabled = s.sync.fixed;
            byId("interval-form").querySelector("button").hidden = s.sync.fixed;
            byId("box-name").value = s.box.name === null ? "" : s.box.name;
            byId("box-name").disabled = s.box.fixed;
            byId("box-name-form").querySelector("button").hidden = s.box.fixed;
            var remotes = byId("settings-remotes");
            remotes.replaceChildren.apply(remotes, s.remotes.map(settingRemote));
            var problems = byId("settings-problems");
            problems.replaceChildren.apply(problems, s.problems.map(function (p) {
              return element("li", "problem", p);
            }));
          }
          function loadSettings() {
            if (pairing.pairing !== "paired") { byId("settings").hidden = true; return; }
            fetch("/api/settings", {cache: "no-store"})
              .then(function (response) { return response.ok ? response.json() : null; })
              .then(function (s) { if (s) renderSettings(s); })
              .catch(function () {});
          }
          function changeSetting(fields) {
            var result = byId("settings-result");
            result.textContent = "";
            var form = new URLSearchParams(fields);
            form.set("version", settings === null ? "none" : settings.version);
            fetch("/api/settings", {method: "POST", headers: changeHeaders(), body: form})
              .then(function (response) {
                return response.json().then(function (answer) {
                  if (response.ok) { renderSettings(answer); result.textContent = "Saved."; return; }
                  result.textContent = answer.error || "Refused (HTTP " + response.status + ")";
                  if (response.status === 412 || response.status === 403) { checkPairing(); }
                });
              })
              .catch(function () { result.textContent = "Cannot reach the box"; });
          }
          byId("interval-form").addEventListener("submit", function (event) {
            event.preventDefault();
            changeSetting({action: "interval", value: byId("interval").value});
          });
          byId("box-name-form").addEventListener("submit", function (event) {
            event.preventDefault();
            changeSetting({action: "box-name", value: byId("box-name").value});
          });

        """
}

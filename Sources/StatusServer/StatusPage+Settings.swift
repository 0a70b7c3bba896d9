/// "Settings" on the page, for a paired browser: how often to sync, the box's name on the network, the page's
/// password, and each address book with what may be changed of it (pause or resume, rename, which side wins a
/// conflict, a new app password, remove); what /etc sets is shown, not offered. The server writes an empty, hidden
/// section; the script fills it from `/api/settings` once `/api/pairing` says paired, and posts each change as a
/// form with the settings' version and the browser's token. A new app password is a step of `/api/setup` (the box
/// tests it before it saves it).
///
/// Hooks: `#settings` (hidden until paired) with `#interval-form` and its `#interval` (a select), `#box-name-form`
/// and its `#box-name`, `#page-password-form` (`#page-password-state`, `#page-password`, `#page-password-again`,
/// `#page-password-remove`), `#settings-remotes` (one `li.setting-remote` per address book, `data-name`, with
/// `.fixed`, or `details.remote-change` holding `button.pause` or `button.resume`, `form.rename` (`input`),
/// `select.conflict`, `form.replace-password` (CardDAV with a password; `input`) or `button.sign-in-again` (OAuth:
/// the sign-in shows in `#setup`), `button.remove`, and once that is pressed
/// `.remove-confirm` with `button.remove-yes` and `button.remove-no`), `#settings-problems`, `#settings-result`.
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
        <form id="page-password-form" class="setting"><label for="page-password">The page's password</label>
        <span id="page-password-state" class="note"></span>
        <input id="page-password" type="password" autocomplete="new-password" placeholder="New password"> <input \
        id="page-password-again" type="password" autocomplete="new-password" placeholder="Again"> <button \
        class="secondary" type="submit">Save</button> <button id="page-password-remove" class="secondary" \
        type="button">Remove the password</button></form>
        <ul id="settings-remotes"></ul>
        <ul id="settings-problems"></ul>
        <p id="settings-result" role="alert"></p>
        </section>

        """

    static let settingsScript = """
          var settings = null;
          var CONFLICT = {newest: "the newest change wins", local: "the box's version wins",
            remote: "the server's version wins"};
          function button(className, text, onClick) {
            var node = element("button", className + " secondary", text);
            node.type = "button";
            node.addEventListener("click", onClick);
            return node;
          }
          function inlineForm(className, input, text, onSubmit) {
            var form = element("form", className);
            form.append(input, " ", element("button", "secondary", text));
            form.addEventListener("submit", function (event) {
              event.preventDefault();
              onSubmit(input.value);
            });
            return form;
          }
          function remoteChanges(r, item) {
            var change = element("details", "remote-change");
            change.append(element("summary", "", "Change"));
            var name = document.createElement("input");
            name.value = r.name;
            name.maxLength = 64;
            name.setAttribute("aria-label", "New name");
            var conflict = element("select", "conflict");
            Object.keys(CONFLICT).forEach(function (key) { conflict.append(new Option(CONFLICT[key], key)); });
            conflict.value = r.conflict;
            conflict.setAttribute("aria-label", "When both sides changed a contact");
            conflict.addEventListener("change", function () {
              changeSetting({action: "conflict", remote: r.name, value: conflict.value});
            });
            var label = element("label", "", "When both sides changed a contact: ");
            label.append(conflict);
            change.append(inlineForm("rename", name, "Rename", function (value) {
              changeSetting({action: "rename", remote: r.name, value: value});
            }), label);
            if (r.signs_in) {
              change.append(button("sign-in-again", "Sign in again", function () {
                setupPost({action: "sign-in", remote: r.name});
                byId("setup").scrollIntoView();
              }));
            } else if (r.kind === "carddav") {
              var password = document.createElement("input");
              password.type = "password";
              password.autocomplete = "new-password";
              password.placeholder = "New app password";
              change.append(inlineForm("replace-password", password, "Replace the password", function (value) {
                password.value = "";
                replacePassword(r.name, value);
              }));
            }
            change.append(button(r.paused ? "resume" : "pause", r.paused ? "Resume" : "Pause", function () {
              changeSetting({action: r.paused ? "resume" : "pause", remote: r.name});
            }), " ", button("remove", "Remove", function () {
              if (item.querySelector(".remove-confirm")) return;
              var confirm = element("p", "remove-confirm", "Remove " + r.name + "? The box keeps its contacts " +
                "and their history, and forgets what it knew of this address book; nothing on the server is " +
                "touched. Added again later, it starts afresh. ");
              confirm.append(button("remove-yes", "Remove " + r.name, function () {
                changeSetting({action: "remove", remote: r.name});
              }), " ", button("remove-no", "Keep it", function () { confirm.remove(); }));
              change.append(confirm);
            }));
            return change;
          }
          function settingRemote(r) {
            var item = element("li", "setting-remote" + (r.paused ? " paused" : ""));
            item.setAttribute("data-name", r.name);
            item.append(element("span", "remote-name", r.name), " ", element("span", "kind", r.location),
              " ", element("span", "result", r.paused ? "Paused" : "Syncing"), " ");
            item.append(r.fixed ? element("span", "fixed", "set by the administrator in /etc/contactbox") :
              remoteChanges(r, item));
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
            var page = s.page_password;
            byId("page-password-state").textContent = page.fixed ? "Set by the administrator in /etc/contactbox." :
              page.set ? "Set: the page asks for it." : "None: anyone on your home network can read this page.";
            byId("page-password-form").querySelectorAll("input, button").forEach(function (node) {
              node.hidden = page.fixed;
            });
            byId("page-password-remove").hidden = page.fixed || !page.set;
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
                  if (response.ok) {
                    renderSettings(answer);
                    result.textContent = fields.action === "page-password" && fields.value ?
                      "Saved. The browser asks for it next (any user name)." : "Saved.";
                    return;
                  }
                  result.textContent = answer.error || "Refused (HTTP " + response.status + ")";
                  if (response.status === 412 || response.status === 403) { checkPairing(); }
                  if (response.status === 412) { loadSettings(); }
                });
              })
              .catch(function () { result.textContent = "Cannot reach the box"; });
          }
          // Tested by the box (a login and a listing) before it is saved: a step of /api/setup, asked again until over.
          var replacing = false;
          function replacePassword(name, password) {
            var result = byId("settings-result");
            result.textContent = "Testing the new password\\u2026";
            replacing = true;
            function answered(response) {
              return response.json().then(function (v) {
                if (v.phase !== "checking") replacing = false;
                if (!response.ok && response.status !== 202) {
                  result.textContent = v.error || "Refused (HTTP " + response.status + ")";
                } else if (v.phase === "checking") {
                  setTimeout(function () { fetch("/api/setup", {cache: "no-store"}).then(answered); }, 1000);
                } else {
                  result.textContent = v.phase === "replaced" ? "The new password works, and is saved." :
                    v.message || "The password was not replaced.";
                }
              });
            }
            fetch("/api/setup", {method: "POST", headers: changeHeaders(),
              body: new URLSearchParams({action: "password", remote: name, password: password})})
              .then(answered)
              .catch(function () { replacing = false; result.textContent = "Cannot reach the box"; });
          }
          byId("interval-form").addEventListener("submit", function (event) {
            event.preventDefault();
            changeSetting({action: "interval", value: byId("interval").value});
          });
          byId("box-name-form").addEventListener("submit", function (event) {
            event.preventDefault();
            changeSetting({action: "box-name", value: byId("box-name").value});
          });
          byId("page-password-form").addEventListener("submit", function (event) {
            event.preventDefault();
            var first = byId("page-password"), again = byId("page-password-again");
            if (first.value === "" || first.value !== again.value) {
              byId("settings-result").textContent = "Type the same new password twice.";
              return;
            }
            changeSetting({action: "page-password", value: first.value});
            first.value = again.value = "";
          });
          byId("page-password-remove").addEventListener("click", function () {
            changeSetting({action: "page-password", value: ""});
          });

        """
}

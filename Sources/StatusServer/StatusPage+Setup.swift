/// "Add an address book" on the page, for a paired browser: where it is (iCloud, Google, Fastmail, Nextcloud, any
/// CardDAV server, a folder on the box, each with where to make its app password), the login, then the books found
/// to choose from; the box tests each before it saves it, and the first sync starts. A box with no address book
/// opens its page on this section (and on pairing, which comes first).
///
/// A provider that signs in (Google, another OAuth issuer) asks for the client's ID and secret instead of a
/// password; *Sign in* then shows the issuer's address to open, and a box for the address the browser ends on.
///
/// Hooks: `#setup` (hidden until paired; `data-phase`: `idle`, `finding`, `found`, `adding`, `added`, `failed`,
/// `signingIn`, `signedIn`) with `#setup-find` (`input[name=provider]` radios in `#setup-providers`,
/// `#setup-help`, `#setup-address`, `#setup-username`, `#setup-password`, `#setup-oauth` with `#setup-client-id`,
/// `#setup-client-secret` and, for another issuer, `#setup-issuer`'s `#setup-authorization-url`,
/// `#setup-token-url`, `#setup-scope`; `#setup-wire`, `#setup-find-button`), `#setup-signin` (`#setup-signin-link`,
/// `#setup-pasted`, `#setup-signin-button`, `#setup-signin-cancel`), `#setup-add` (`#setup-books`, one
/// `input[name=book]` checkbox per book, `#setup-add-button`, `#setup-cancel`), `#setup-status`.
extension StatusPage {
    static let setupSection = """
        <section id="setup" data-phase="" hidden>
        <h2>Add an address book</h2>
        <form id="setup-find">
        <fieldset id="setup-providers"><legend>Where are the contacts?</legend></fieldset>
        <p id="setup-help"></p>
        <label id="setup-address-label" for="setup-address">Address</label>
        <input id="setup-address" name="address" autocapitalize="none" spellcheck="false">
        <label id="setup-username-label" for="setup-username">User name</label>
        <input id="setup-username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false">
        <label id="setup-password-label" for="setup-password">App password</label>
        <input id="setup-password" name="password" type="password" autocomplete="new-password">
        <div id="setup-oauth" hidden>
        <label for="setup-client-id">Client ID</label><input id="setup-client-id" autocapitalize="none" \
        spellcheck="false">
        <label for="setup-client-secret">Client secret</label><input id="setup-client-secret" type="password" \
        autocomplete="off">
        <div id="setup-issuer"><label for="setup-authorization-url">Sign-in address</label><input \
        id="setup-authorization-url" autocapitalize="none" spellcheck="false"><label for="setup-token-url">Token \
        address</label><input id="setup-token-url" autocapitalize="none" spellcheck="false"><label \
        for="setup-scope">Scope</label><input id="setup-scope" autocapitalize="none" spellcheck="false"></div>
        </div>
        <p id="setup-wire" hidden>This page is not encrypted (plain HTTP): the password crosses your home network \
        once, when you add the book. The box keeps it in a file only it can read, and never shows it again.</p>
        <button id="setup-find-button" type="submit">Find address books</button>
        </form>
        <form id="setup-signin" hidden>
        <p>1. <a id="setup-signin-link" target="_blank" rel="noopener noreferrer">Open the sign-in page</a>, sign \
        in and allow access.</p>
        <p>2. The browser then shows an address it cannot open (on 127.0.0.1, port 1). Copy that whole address \
        from the address bar and paste it here:</p>
        <input id="setup-pasted" autocapitalize="none" spellcheck="false" autocomplete="off">
        <button id="setup-signin-button" type="submit">Continue</button> <button id="setup-signin-cancel" \
        class="secondary" type="button">Cancel</button>
        </form>
        <form id="setup-add" hidden>
        <ul id="setup-books"></ul>
        <button id="setup-add-button" type="submit">Add</button> <button id="setup-cancel" class="secondary" \
        type="button">Cancel</button>
        </form>
        <p id="setup-status" role="status"></p>
        </section>

        """

    static let setupScript = """
          var setup = null, setupPoll = null, openedOnSetup = false, shownAdded = "";
          var SETUP = {
            finding: "Looking for the address books of this account\\u2026",
            adding: "Testing the login and the address books, then saving them\\u2026",
            signedIn: "Signing in and looking for the address books of this account\\u2026"
          };
          function chosenProvider() {
            var checked = document.querySelector("#setup-providers input:checked");
            return setup === null || checked === null ? null :
              setup.providers.filter(function (p) { return p.id === checked.value; })[0];
          }
          function showProvider() {
            var p = chosenProvider();
            byId("setup-help").textContent = p === null ? "" : p.help;
            var address = p !== null && p.needs_address, login = p === null || p.needs_login;
            byId("setup-address-label").textContent = p !== null && p.id === "folder" ? "Folder on the box" :
              "Server address";
            ["setup-address", "setup-address-label"].forEach(function (id) { byId(id).hidden = !address; });
            var signsIn = p !== null && p.signs_in;
            ["setup-username", "setup-username-label"].forEach(function (id) { byId(id).hidden = !login; });
            ["setup-password", "setup-password-label"].forEach(function (id) { byId(id).hidden = !login || signsIn; });
            byId("setup-oauth").hidden = !signsIn;
            byId("setup-issuer").hidden = !signsIn || p.id !== "oauth";
            byId("setup-find-button").textContent = signsIn ? "Sign in" : "Find address books";
            byId("setup-wire").hidden = !login || location.protocol !== "http:";
          }
          function bookItem(b) {
            var item = element("li", "setup-book");
            var box = document.createElement("input");
            box.type = "checkbox";
            box.name = "book";
            box.value = b.url;
            box.checked = true;
            var label = element("label", "", " " + (b.name === null ? b.url : b.name) +
              (b.contacts === null ? "" : " (" + b.contacts + " contacts)"));
            label.prepend(box);
            item.append(label, " ", element("span", "kind", b.url));
            return item;
          }
          function renderSetup(v) {
            // A remote's new password is the Settings section's step: this one stays as it was. Signing a remote
            // in again (`remote` too) is this section's.
            if (replacing || (v.remote !== null && (v.phase === "checking" || v.phase === "replaced"))) {
              v = Object.assign({}, v, {phase: "idle", message: null});
            }
            setup = v;
            var section = byId("setup");
            section.hidden = false;
            section.setAttribute("data-phase", v.phase);
            var providers = byId("setup-providers");
            if (!providers.querySelector("input")) {
              v.providers.forEach(function (p, index) {
                var radio = document.createElement("input");
                radio.type = "radio";
                radio.name = "provider";
                radio.value = p.id;
                radio.checked = index === 0;
                radio.addEventListener("change", showProvider);
                var label = element("label", "setup-provider", " " + p.title);
                label.prepend(radio);
                providers.append(label);
              });
            }
            showProvider();
            var busy = v.phase === "finding" || v.phase === "adding" || v.phase === "signedIn";
            byId("setup-find").hidden = v.phase === "found" || v.phase === "signingIn" || busy;
            byId("setup-signin").hidden = v.phase !== "signingIn";
            if (v.phase === "signingIn") byId("setup-signin-link").href = v.authorize_url;
            byId("setup-add").hidden = v.phase !== "found";
            if (v.phase === "found") {
              var books = byId("setup-books");
              books.replaceChildren.apply(books, v.books.map(bookItem));
            }
            byId("setup-status").textContent = busy ? SETUP[v.phase] : v.phase === "failed" ? v.message :
              v.phase === "added" ? (v.remote !== null ? "Signed in again: " + v.remote + " syncs with it from now on." :
                "Added " + v.added.join(", ") + ": the first sync starts now.") : "";
            clearTimeout(setupPoll);
            if (busy) setupPoll = setTimeout(loadSetup, 1500);
            // What was added is in the settings now.
            if (v.phase === "added" && shownAdded !== v.added.join()) { shownAdded = v.added.join(); loadSettings(); }
          }
          function loadSetup() {
            if (pairing.pairing !== "paired") { byId("setup").hidden = true; return; }
            fetch("/api/setup", {cache: "no-store"})
              .then(function (response) { return response.ok || response.status === 202 ? response.json() : null; })
              .then(function (v) { if (v) renderSetup(v); })
              .catch(function () { setupPoll = setTimeout(loadSetup, 3000); });
          }
          function setupPost(fields) {
            byId("setup-status").textContent = "";
            fetch("/api/setup", {method: "POST", headers: changeHeaders(), body: new URLSearchParams(fields)})
              .then(function (response) {
                return response.json().then(function (answer) {
                  if (response.ok || response.status === 202) { renderSetup(answer); return; }
                  byId("setup-status").textContent = answer.error || "Refused (HTTP " + response.status + ")";
                  if (response.status === 403) checkPairing();
                });
              })
              .catch(function () { byId("setup-status").textContent = "Cannot reach the box"; });
          }
          // A box with nothing to sync opens on pairing and setting up, not on an empty status.
          function openOnSetup(s) {
            if (openedOnSetup || s.state !== "setup") return;
            openedOnSetup = true;
            var header = document.querySelector("header");
            header.after(byId("pairing"));
            byId("pairing").after(byId("setup"));
          }
          byId("setup-find").addEventListener("submit", function (event) {
            event.preventDefault();
            var p = chosenProvider();
            if (p === null) return;
            if (p.signs_in) {
              var secret = byId("setup-client-secret");
              setupPost({action: "sign-in", provider: p.id, address: byId("setup-address").value,
                username: byId("setup-username").value, client_id: byId("setup-client-id").value,
                client_secret: secret.value, authorization_url: byId("setup-authorization-url").value,
                token_url: byId("setup-token-url").value, scope: byId("setup-scope").value});
              secret.value = "";
              return;
            }
            var password = byId("setup-password");
            setupPost({action: "find", provider: p.id, address: byId("setup-address").value,
              username: byId("setup-username").value, password: password.value});
            password.value = "";
          });
          byId("setup-add").addEventListener("submit", function (event) {
            event.preventDefault();
            var books = Array.prototype.map.call(
              document.querySelectorAll("#setup-books input:checked"), function (box) { return box.value; });
            setupPost({action: "add", books: books.join("\\n")});
          });
          byId("setup-cancel").addEventListener("click", function () { setupPost({action: "cancel"}); });
          byId("setup-signin-cancel").addEventListener("click", function () { setupPost({action: "cancel"}); });
          byId("setup-signin").addEventListener("submit", function (event) {
            event.preventDefault();
            setupPost({action: "signed-in", pasted: byId("setup-pasted").value});
            byId("setup-pasted").value = "";
          });

        """
}

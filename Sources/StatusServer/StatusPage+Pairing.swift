/// "This browser" on the page: whether it is paired with the box, the way to pair it (the box's button, or the
/// one-time code of `contactbox pair`), and once paired the list of paired browsers, each with *Forget*. The
/// server writes the unpaired form (the page works without script); the script asks `/api/pairing` and redraws.
///
/// Hooks: `#pairing` (`data-pairing`: `none`, `waiting`, `refused`, `paired`) with `#pairing-text`, `#pair-form`
/// and its `#pair`, `#code-form` with `#pair-code`, `#browsers` (one `li.browser` per paired browser, `data-id`,
/// with `.browser-address`, `time`s and a `button.forget`; `.this` for this one), `#pairing-result`.
extension StatusPage {
    static let pairingSection = """
        <section id="pairing" data-pairing="">
        <h2>This browser</h2>
        <p id="pairing-text">Reading this page needs nothing more. To change anything from this browser (undo a \
        sync, set up address books), pair it with the box: choose Pair this browser, then press the button on the \
        box.</p>
        <form id="pair-form" method="post" action="/api/pairing"><button id="pair" type="submit">Pair this browser\
        </button></form>
        <form id="code-form" method="post" action="/api/pairing"><label for="pair-code">No button? A code from \
        <code>contactbox pair</code>:</label> <input id="pair-code" name="code" inputmode="numeric" \
        autocomplete="one-time-code" maxlength="12" size="10"> <button class="secondary" type="submit">Use code\
        </button></form>
        <p id="pairing-result" role="alert"></p>
        <ul id="browsers"></ul>
        </section>

        """

    static let pairingScript = """
          // pairingBusy: one pairing request at a time. A double tap would ask twice; the button would approve one
          // request and the browser keep the other's cookie, waiting for ever.
          var pairing = {pairing: "none"}, pairingPoll = null, pairingBusy = false;
          var PAIRING = {
            none: "Reading this page needs nothing more. To change anything from this browser (undo a sync, set " +
              "up address books), pair it with the box: choose Pair this browser, then press the button on the box.",
            waiting: "Now press the button on the box once (its blue light is on). You have 2 minutes.",
            refused: "Not paired: the button was not pressed in time, or the box was busy with another browser or " +
              "an undo. Try again.",
            paired: "This browser is paired with the box: it can make changes. Hold the box's button for 10 " +
              "seconds to forget every browser."
          };
          function browserItem(b) {
            var item = element("li", "browser" + (b.id === pairing.browser ? " this" : ""));
            item.setAttribute("data-id", b.id);
            item.append(element("span", "browser-address", (b.id === pairing.browser ? "This browser" :
              "A browser") + " at " + b.address), " \\u00b7 paired ", timeNode(b.paired_at, "", false),
              " \\u00b7 last used ", timeNode(b.last_used, "", false), " ");
            var forget = element("button", "forget secondary", "Forget");
            forget.type = "button";
            forget.addEventListener("click", function () { pairingPost("/api/pairing/forget?id=" + b.id); });
            item.append(forget);
            return item;
          }
          function renderPairing(p) {
            pairing = p;
            byId("pairing").setAttribute("data-pairing", p.pairing);
            byId("pairing-text").textContent = label(PAIRING, p.pairing);
            byId("pair-form").hidden = p.pairing === "paired" || p.pairing === "waiting";
            byId("code-form").hidden = p.pairing === "paired";
            var list = byId("browsers");
            list.replaceChildren.apply(list, (p.browsers || []).map(browserItem));
            paintTimes();
            clearTimeout(pairingPoll);
            if (p.pairing === "waiting") pairingPoll = setTimeout(checkPairing, 1500);
            loadSettings();
            loadSetup();
          }
          function checkPairing() {
            fetch("/api/pairing", {cache: "no-store"})
              .then(function (response) { return response.ok ? response.json() : null; })
              .then(function (p) { if (p) renderPairing(p); else askAgain(); })
              .catch(askAgain);
          }
          // A question that went unanswered (the Wi-Fi gone a moment, the box restarting) must not end the wait:
          // the button may be pressed after it.
          function askAgain() {
            clearTimeout(pairingPoll);
            if (pairing.pairing === "waiting") pairingPoll = setTimeout(checkPairing, 1500);
          }
          function changeHeaders() { return pairing.token ? {"X-ContactBox-Token": pairing.token} : {}; }
          function pairingPost(path) {
            if (pairingBusy) return;
            pairingBusy = true;
            var result = byId("pairing-result");
            result.textContent = "";
            fetch(path, {method: "POST", headers: changeHeaders()})
              .then(function (response) {
                if (response.ok) return response.json().then(renderPairing);
                return response.text().then(function (text) {
                  result.textContent = text || "Refused (HTTP " + response.status + ")";
                  checkPairing();
                });
              })
              .catch(function () { result.textContent = "Cannot reach the box"; })
              .then(function () { pairingBusy = false; });
          }
          byId("pair-form").addEventListener("submit", function (event) {
            event.preventDefault();
            pairingPost("/api/pairing");
          });
          byId("code-form").addEventListener("submit", function (event) {
            event.preventDefault();
            if (pairingBusy) return;
            pairingPost("/api/pairing?code=" + encodeURIComponent(byId("pair-code").value));
            byId("pair-code").value = "";
          });
          checkPairing();

        """
}

import Foundation
import TestSupport
import Testing

/// A household sets the box up in a real browser (Debian's Chromium through WebDriver, at phone width), against the
/// daemon itself and a real Radicale: from a box with no address book to one that syncs, then changed and taken
/// apart again, with the refusals a stranger meets on the way. A screenshot of each step is kept,
/// `.build/artefacts/household-*.png`.
@Suite(
    "Setting the box up in a real browser, end to end", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"),
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .timeLimit(.minutes(5)))
struct HouseholdBrowserTests {
    static let phoneWidth = 412

    @Test("pair, refused logins in words, find and add Radicale, first sync, a folder, the interval, remove, forget")
    func household() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let server = try RadicaleServer()
        try server.createAddressBook()
        try server.seedCards([("ann.vcf", card("ann", "Ann Example"))])
        let unknownAuthority = try RadicaleServer(tls: .trusted())
        let box = try FreshBox()
        let (work, port, page) = (box.work, box.port, box.page)
        let kitchen = work.path + "/kitchen"
        try FileManager.default.createDirectory(atPath: kitchen, withIntermediateDirectories: true)
        let closedPort = try freeLoopbackPort()

        let driver = try ChromeDriver()
        let phone = try driver.session(width: Self.phoneWidth)
        try phone.navigate(to: page)
        try phone.waitForAttribute("data-state", of: "#state", toBe: "setup")
        // A box with nothing to sync opens on pairing, then adding an address book.
        let order = try phone.execute(
            "return Array.from(document.querySelectorAll('main > section')).slice(0, 2).map(s => s.id).join(' ')")
        #expect(order == .string("pairing setup"), "\(order)")
        try shot(phone, "1-needs-setup")

        // An unpaired browser is refused, and told to press the button.
        let refused = try post(phone, "/api/settings", "action=interval&value=1h&version=none")
        #expect(refused.hasPrefix("403 "), "\(refused)")
        #expect(refused.contains("press"), "\(refused)")

        try box.pair(phone)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "idle")
        try shot(phone, "2-paired")

        // Wrong password, unreachable server, an authority the box does not trust: each in words.
        for (address, password, words, name) in [
            (server.baseURL, "wrong", "the server refused the login: make a new app password", "3-wrong-password"),
            ("http://127.0.0.1:\(closedPort)/", RadicaleServer.password, "cannot be reached", "4-unreachable"),
            (unknownAuthority.baseURL, RadicaleServer.password, "certificate", "5-unknown-authority"),
        ] {
            try find(phone, address: address, password: password)
            let status = try phone.waitForText(of: "#setup-status", containing: words, seconds: 60)
            #expect(!status.contains(password) || password == RadicaleServer.password)
            try phone.scroll(to: "#setup-password")
            try shot(phone, name)
        }

        // Found by discovery from the server's root, added, and the first sync brings Ann down.
        try find(phone, address: server.baseURL, password: RadicaleServer.password)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "found", seconds: 60)
        let book = try phone.waitForElement("#setup-books input[name=book]")
        #expect(try phone.attribute("value", of: book) == server.addressBookURL())
        try shot(phone, "6-found")
        try phone.click("#setup-add-button")
        try phone.waitForText(
            of: "#setup-status", containing: "Added contacts: the first sync starts now.", seconds: 60)
        try phone.waitForElement("#remotes li.remote.result-ok", seconds: 60)
        try phone.waitForText(of: "#contacts", containing: "1")
        try shot(phone, "7-first-sync")
        #expect(try contactbox(["show", "--db", work.db, "ann"]).stdout.contains("Ann Example"))

        // A folder on the box: no password.
        try phone.click("#setup-providers input[value=folder]")
        _ = try phone.execute("document.getElementById('setup-address').value = arguments[0]", [.string(kitchen)])
        try phone.click("#setup-find-button")
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "found", seconds: 30)
        try phone.click("#setup-add-button")
        try phone.waitForText(of: "#setup-status", containing: "Added kitchen", seconds: 30)
        try waitUntil("Ann in the folder", seconds: 60) {
            try FileManager.default.contentsOfDirectory(atPath: kitchen).contains { $0.hasSuffix(".vcf") } ? true : nil
        }

        // The interval.
        try phone.waitForElement(#"#settings-remotes li[data-name="kitchen"]"#)
        _ = try phone.execute(#"document.getElementById("interval").value = "6h""#)
        try phone.click("#interval-form button")
        try phone.waitForText(of: "#settings-result", containing: "Saved.")
        #expect(try work.read("store/settings.toml").contains("interval = \"6h\""))
        try phone.scroll(to: "#settings")
        try shot(phone, "8-settings")

        // A form replayed with the version it was read at, after the interval changed: refused, nothing saved.
        let replayed = try post(phone, "/api/settings", "action=remove&remote=contacts&version=none")
        #expect(replayed.hasPrefix("412 "), "\(replayed)")

        // Removed, once confirmed: the page says what stays; Ann stays, and so does the card on the server.
        let contacts = #"#settings-remotes li[data-name="contacts"]"#
        _ = try phone.execute("document.querySelector('\(contacts) details').open = true")
        try phone.click(contacts + " button.remove")
        try phone.waitForText(of: contacts + " .remove-confirm", containing: "nothing on the server is touched")
        try phone.scroll(to: contacts)
        try shot(phone, "9-remove")
        try phone.click(contacts + " button.remove-yes")
        try waitUntil("the remote to go from the settings") { try phone.elements(contacts).isEmpty ? true : nil }
        try waitUntil("the remote to go from the status", seconds: 30) {
            let names = try phone.execute(
                "return Array.from(document.querySelectorAll('#remotes .remote-name')).map(n => n.textContent).join()")
            return names == .string("kitchen") ? true : nil
        }
        #expect(try phone.text("#contacts") == "1")
        #expect(!(try work.read("store/settings.toml")).contains("name = \"contacts\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.collectionFolder()).contains("ann.vcf"))

        // The paired browser's own cookie and token, sent with another site's Origin (as a page elsewhere that got
        // hold of both would): refused, and nothing changed.
        let cookie = try #require(try phone.cookies().first { $0.name == "contactbox_pairing" })
        let pairing = try HTTPTestClient.request(
            port: port, path: "/api/pairing", headers: [("Cookie", "contactbox_pairing=\(cookie.value)")])
        let token = try #require(
            pairing.body.split(separator: "\"").drop { $0 != "token" }.dropFirst(2).first.map(String.init))
        let forged = try HTTPTestClient.request(
            port: port, method: "POST", path: "/api/settings",
            headers: [
                ("Cookie", "contactbox_pairing=\(cookie.value)"), ("X-ContactBox-Token", token),
                ("Origin", "http://evil.example"), ("Content-Type", "application/x-www-form-urlencoded"),
            ], body: "action=interval&value=5m&version=none")
        #expect(forged.status == 403, "\(forged.body)")
        #expect(try work.read("store/settings.toml").contains("interval = \"6h\""))

        // Forget this browser: its changes are refused from then on.
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
        try phone.click("#browsers li.browser.this button.forget")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        #expect(try phone.attribute("hidden", of: "#settings") != nil)
        let forgotten = try post(phone, "/api/settings", "action=interval&value=5m&version=none")
        #expect(forgotten.hasPrefix("403 "), "\(forgotten)")
        try shot(phone, "10-forgotten")
        let log = try work.read("daemon.log")
        #expect(!log.contains(RadicaleServer.password), "the password is never logged")
    }

    /// "Find address books" for any CardDAV server at `address`.
    private func find(_ phone: WebDriverSession, address: String, password: String) throws {
        try phone.click("#setup-providers input[value=carddav]")
        _ = try phone.execute(
            "document.getElementById('setup-address').value = arguments[0];"
                + "document.getElementById('setup-username').value = arguments[1];"
                + "document.getElementById('setup-password').value = arguments[2];",
            [.string(address), .string(RadicaleServer.username), .string(password)])
        try phone.click("#setup-find-button")
    }

    /// A form posted from the page's own origin as its script would, with the page's token when it has one:
    /// "STATUS body".
    private func post(_ phone: WebDriverSession, _ path: String, _ form: String) throws -> String {
        let answer = try phone.executeAsync(
            """
            var done = arguments[arguments.length - 1];
            fetch("/api/pairing", {cache: "no-store"}).then(function (r) { return r.json(); })
              .then(function (p) {
                return fetch("\(path)", {method: "POST", body: new URLSearchParams("\(form)"),
                  headers: p.token ? {"X-ContactBox-Token": p.token} : {}});
              })
              .then(function (r) { return r.text().then(function (t) { done(r.status + " " + t); }); })
              .catch(function (e) { done("failed: " + e); });
            """)
        guard case .string(let text) = answer else { throw WebDriverFailure("no answer: \(answer)") }
        return text
    }

    private func shot(_ phone: WebDriverSession, _ name: String) throws {
        let saved = try phone.saveScreenshot("household-" + name)
        #expect(saved.isPNG && saved.width == Self.phoneWidth, "\(saved.path)")
    }
}

import Foundation
import TestSupport
import Testing

/// The household's contacts in a real browser (Debian's Chromium through WebDriver, at phone width), against the
/// daemon itself, a real store and a real Radicale: the list and its search, a contact, its versions, a restore
/// confirmed on the page and one confirmed by a long press of the (simulated) button, the trash, an API token made and
/// revoked on the page, the download, and cards written to attack the page shown as inert text. A screenshot of each
/// step is kept, `.build/artefacts/contacts-*.png`.
@Suite(
    "The contacts' pages in a real browser, end to end", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"),
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .timeLimit(.minutes(5)))
struct ContactsBrowserTests {
    static let phoneWidth = 412

    /// A 16 × 16 blue PNG.
    static let png =
        "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mOQizpBEmIY1TCqYfhqAAB1t0AQ8dIAngAAAABJRU5ErkJggg=="
    /// An SVG that would run script wherever it is shown as a document.
    static let svg = Data(
        #"<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')"><script>alert('svg script')</script></svg>"#
            .utf8
    ).base64EncodedString()
    /// 96 bytes that are no image, said to be a JPEG.
    static let garbage = Data((0..<96).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }).base64EncodedString()

    static let cards: [(fileName: String, vcard: String)] = [
        (
            "ada.vcf",
            card(
                "ada", "Ada Lovelace", "ORG:Analytical Engines Ltd", "TEL;TYPE=cell:+49 30 1234567",
                "EMAIL:ada@example.org", "PHOTO;ENCODING=b;TYPE=PNG:" + png)
        ),
        ("grace.vcf", card("grace", "Grace Hopper", "ORG:US Navy", "TEL:+1 555 0100")),
        (
            "script.vcf",
            card("script", "<script>alert(1)</script>", "NOTE:<img src=x onerror=alert(2)>", "TEL:+44 20 7946 0001")
        ),
        ("link.vcf", card("link", "Mallory Link", "URL:javascript:alert(3)", "EMAIL:x@example.org?bcc=evil@example")),
        ("svg.vcf", card("svg", "Sven Vector", "PHOTO;VALUE=URI:data:image/svg+xml;base64," + svg)),
        ("garbage.vcf", card("garbage", "Gary Bytes", "PHOTO;ENCODING=b;TYPE=JPEG:" + garbage)),
    ]

    @Test(
        "list, search, a contact, its versions, restores on the page and by the button, trash, tokens, download, inert")
    func contactsPages() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let box = try ContactsBox(cards: Self.cards, terminal: true)
        let driver = try ChromeDriver()
        let phone = try driver.session(width: Self.phoneWidth)

        // Not paired: the page asks to pair, and shows no contact.
        try phone.navigate(to: box.page + "/contacts")
        #expect(try phone.text("h1") == "Pair this browser")
        #expect(try phone.elements("li.contact").isEmpty)
        try phone.navigate(to: box.page + "/")
        try pair(phone, box)
        let cookie = try #require(try phone.cookies().first { $0.name == "contactbox_pairing" })
        let paired = "Cookie: contactbox_pairing=" + cookie.value

        // The list, in name order, each card's text as text.
        try phone.navigate(to: box.page + "/contacts")
        let names = try phone.elements("#contacts li.contact .name").map { try phone.text($0) }
        #expect(
            names == [
                "<script>alert(1)</script>", "Ada Lovelace", "Gary Bytes", "Grace Hopper", "Mallory Link",
                "Sven Vector",
            ], "\(names)")
        try expectInert(phone)
        // Only Ada's photo is an image; it loads. The SVG and the bytes that are no image get initials.
        _ = try waitUntil("Ada's photo, alone, to load") {
            let photos = try phone.execute(
                "return Array.from(document.querySelectorAll('#contacts img')).map(i => i.getAttribute('src') + ' '"
                    + " + i.naturalWidth).join()")
            return photos == .string("/api/contacts/ada/photo 16") ? true : nil
        }
        try shot(phone, "1-list")

        // Search: by name, and by phone digits and organisation.
        try search(phone, box, "hopper", finds: ["Grace Hopper"])
        try search(phone, box, "030 1234", finds: ["Ada Lovelace"])
        try search(phone, box, "analytical", finds: ["Ada Lovelace"])
        try search(phone, box, "nobody at all", finds: [])
        #expect(try phone.text("#contacts li.empty") == "No contact matches.")
        try search(phone, box, "ada", finds: ["Ada Lovelace"])
        try shot(phone, "2-search")

        // Ada: every field, where she lives, one version.
        try phone.click("#contacts a.name")
        try phone.waitForElement("#contact")
        #expect(try phone.text("h1") == "Ada Lovelace")
        #expect(try phone.text("#fields .field-organisation .value") == "Analytical Engines Ltd")
        #expect(try phone.attribute("href", of: "#fields .field-phone a") == "tel:+49301234567")
        #expect(try phone.text("#remotes").contains("home"))
        #expect(try phone.elements("#versions li.version").count == 1)
        #expect(try phone.attribute("href", of: "#download-one") == "/api/export?uid=ada")
        try expectInert(phone)
        try shot(phone, "3-contact")

        // A change on Radicale, synced: a version, with what changed.
        try box.radicale.seedCards([
            (
                "ada.vcf",
                card(
                    "ada", "Ada Lovelace", "ORG:Analytical Engines Ltd", "TEL;TYPE=cell:+49 30 7654321",
                    "EMAIL:ada@example.org", "PHOTO;ENCODING=b;TYPE=PNG:" + Self.png)
            )
        ])
        try box.sync(until: "the change to come down") { try adaPhone(box, paired) == "+49 30 7654321" }
        try phone.navigate(to: box.page + "/contacts/ada")
        let versions = try phone.elements("#versions li.version")
        #expect(versions.count == 2)
        #expect(try phone.text("#versions li.version .cause").contains("home"), "the sync from home changed it")
        #expect(try phone.text("#versions li.version table.changes").contains("+49 30 1234567"))
        #expect(try phone.elements("#versions li.version form.restore").count == 1, "the creation has no before")
        try phone.scroll(to: "#versions")
        try shot(phone, "4-versions")

        // Restore the version before the change: first what it would change, then confirmed here (paired just now).
        try phone.click("#versions li.version form.restore button")
        try phone.waitForElement("#restore")
        let preview = try phone.text("#restore table.changes")
        #expect(preview.contains("+49 30 7654321") && preview.contains("+49 30 1234567"), "\(preview)")
        #expect(try phone.elements("#restore-arm").isEmpty)
        try shot(phone, "5-restore-preview")
        try phone.click("#restore-confirm")
        let result = try phone.waitForText(of: "#restore-result", containing: "Restored (run ")
        #expect(result.contains("the status page can undo it"))
        try shot(phone, "6-restored")
        #expect(try adaPhone(box, paired) == "+49 30 1234567")
        try box.sync(until: "the restore to reach Radicale") { try box.radicaleBook().contains("+49 30 1234567") }

        // The trash: Grace deleted on Radicale; restored from the trash, on the page.
        let gone = try box.radicale.request("DELETE", box.radicale.addressBookURL() + "grace.vcf")
        #expect(gone.status == 200 || gone.status == 204, "\(gone)")
        try box.sync(until: "Grace's deletion to come down") {
            try box.curl("/api/contacts/grace", paired).status == 404
        }
        try phone.navigate(to: box.page + "/contacts/grace")
        #expect(try phone.text("#contact .deleted").hasPrefix("Deleted: in the trash."))
        try phone.navigate(to: box.page + "/trash")
        #expect(try phone.elements("#trash li.trashed").count == 1)
        #expect(try phone.text("#trash li.trashed .name") == "Grace Hopper")
        #expect(try phone.text("#trash li.trashed .cause").contains("home"))
        try shot(phone, "7-trash")
        try phone.click("#trash li.trashed form.restore button")
        try phone.waitForElement("#restore-confirm")
        try phone.click("#restore-confirm")
        try phone.waitForText(of: "#restore-result", containing: "Restored (run ")
        try phone.navigate(to: box.page + "/trash")
        #expect(try phone.text("#trash li.empty") == "The trash is empty.")
        try box.sync(until: "Grace back on Radicale") { try box.radicaleBook().contains("UID:grace") }

        // A browser paired more than 10 minutes ago: the button confirms. The pairing is aged in its file (the box
        // reads the file again when another process changed it), as ten minutes passing would leave it.
        try agePairing(box)
        try phone.navigate(to: box.page + "/contacts/ada")
        try phone.click("#versions li.version form.restore button")
        try phone.waitForElement("#restore-arm")
        #expect(try phone.elements("#restore-confirm").isEmpty)
        #expect(try phone.text("#restore .note").contains("paired more than 10 minutes ago"))
        try shot(phone, "8-restore-button")
        // Its form sent with step=confirm instead (as a forged or stale page would) is refused: nothing restored.
        try phone.execute(
            "var f = document.querySelector('#restore form.restore'); f.querySelector('[name=step]').value = 'confirm';"
                + " f.submit();")
        try phone.waitForText(of: "body", containing: "confirm with the box's button instead")
        #expect(try adaPhone(box, paired) == "+49 30 1234567")
        try phone.navigate(to: box.page + "/contacts/ada")
        try phone.click("#versions li.version form.restore button")
        try phone.click(phone.waitForElement("#restore-arm"))
        try phone.waitForText(of: "#restore-result", containing: "press and hold the box's button")
        let armed = try box.status()["undo"] as? [String: Any]
        // The status page is open to anyone on the network: it names no one.
        #expect(armed?["phase"] as? String == "armed" && armed?["restore"] as? String == "a contact", "\(armed ?? [:])")
        #expect(try adaPhone(box, paired) == "+49 30 1234567", "nothing changes before the button")
        try shot(phone, "9-armed")
        box.press("l")
        _ = try waitUntil("the long press to restore", seconds: 20) {
            (try box.status()["undo"] as? [String: Any])?["phase"] as? String == "done" ? true : nil
        }
        #expect(try adaPhone(box, paired) == "+49 30 7654321")
        try phone.navigate(to: box.page + "/contacts/ada")
        #expect(try phone.text("#versions li.version .cause").contains("button"), "the newest version: the button's")
        try shot(phone, "10-restored-by-button")

        // An API token made on the page, shown once, read with; revoked on the page, refused.
        try phone.navigate(to: box.page + "/tokens")
        try phone.sendKeys("kitchen", to: "#token-create input[name=name]")
        try phone.click("#token-create button[type=submit]")
        let made = try phone.waitForText(of: "#token-new .token-secret", containing: "cbx_")
        #expect(try phone.text("#tokens li.token .note").hasPrefix("reads, made "))
        try shot(phone, "11-token")
        let kitchen = "Authorization: Bearer " + made
        #expect(try box.curl("/api/contacts", kitchen).status == 200)
        try phone.navigate(to: box.page + "/tokens")
        #expect(!(try phone.text("body")).contains(made), "shown once")
        try phone.click("#tokens li.token form button")
        try phone.waitForText(of: "#tokens li.empty", containing: "No tokens yet.")
        #expect(try box.curl("/api/contacts", kitchen).status == 401)

        // The download: every live contact in one .vcf, with the browser's own cookie.
        try phone.navigate(to: box.page + "/contacts")
        #expect(try phone.attribute("href", of: "#download-all") == "/api/export")
        #expect(try phone.attribute("download", of: "#download-all") != nil)
        let download = try box.curl("/api/export", paired)
        #expect(download.status == 200)
        #expect(download.headers["content-disposition"]?.hasPrefix("attachment; filename=\"contacts-") == true)
        #expect(download.body.components(separatedBy: "BEGIN:VCARD").count - 1 == 6)
        for uid in ["ada", "grace", "script", "link", "svg", "garbage"] {
            #expect(download.body.contains("UID:\(uid)\r\n"), "\(uid)")
        }
        #expect(try box.curl("/api/export", nil).status == 401, "not without a credential")

        // The hostile cards, one by one: text, never markup; no javascript: link; no photo that is not an image.
        try phone.navigate(to: box.page + "/contacts/script")
        #expect(try phone.text("h1") == "<script>alert(1)</script>")
        #expect(try phone.text("#fields .field-note .value") == "<img src=x onerror=alert(2)>")
        #expect(try phone.elements("img").isEmpty)
        try expectInert(phone)
        try shot(phone, "12-hostile-name")
        try phone.navigate(to: box.page + "/contacts/link")
        #expect(try phone.text("#fields .field-url .value") == "javascript:alert(3)")
        #expect(try phone.elements("#fields .field-url a").isEmpty)
        #expect(try phone.elements("#fields .field-email a").isEmpty, "an address with ?bcc= is no mailto: link")
        try expectInert(phone)
        for uid in ["svg", "garbage"] {
            try phone.navigate(to: box.page + "/contacts/" + uid)
            #expect(try phone.elements("img").isEmpty, "\(uid)")
            #expect(try phone.elements(".initials.big").count == 1, "\(uid)")
            try expectInert(phone)
            #expect(try box.curl("/api/contacts/\(uid)/photo", paired).status == 404, "\(uid)")
        }
        try shot(phone, "13-hostile-photo")
        let photo = try HTTPTestClient.request(
            port: box.port, path: "/api/contacts/ada/photo",
            headers: [("Cookie", "contactbox_pairing=" + cookie.value)])
        #expect(photo.status == 200 && photo.header("Content-Type") == "image/png")
        let policy = try box.curl("/contacts/svg", paired).headers["content-security-policy"] ?? ""
        #expect(policy.hasPrefix("default-src 'none';") && !policy.contains("script-src"), "\(policy)")
    }

    /// Pairs the browser with the one-time code of `contactbox pair`, on the status page.
    private func pair(_ phone: WebDriverSession, _ box: ContactsBox) throws {
        let code = try #require(
            try contactbox(["pair", "--db", box.work.db]).stdout.split(separator: "\n").first?.split(separator: " ")
                .last)
        try phone.sendKeys(String(code), to: "#pair-code")
        try phone.click("#code-form button[type=submit]")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
    }

    /// Searches on the list page as a person does (the field, then Enter); the names found.
    private func search(
        _ phone: WebDriverSession, _ box: ContactsBox, _ text: String, finds expected: [String]
    ) throws {
        try phone.navigate(to: box.page + "/contacts")
        try phone.sendKeys(text + WebDriverSession.enterKey, to: "#search input[name=q]")
        _ = try waitUntil("the search for \(text)") {
            try phone.currentURL().contains("q=")
                && phone.execute("return document.readyState") == .string("complete") ? true : nil
        }
        let found = try phone.elements("#contacts li.contact .name").map { try phone.text($0) }
        #expect(found == expected, "\(text)")
    }

    /// No script in the page, no dialog open: what a card held stayed text.
    private func expectInert(_ phone: WebDriverSession) throws {
        #expect(try phone.execute("return document.querySelectorAll('script').length") == .number(0))
        #expect(
            try phone.execute(
                "return Array.from(document.querySelectorAll('a[href],img[src],form[action]')).filter(e => /^\\s*(javascript"
                    + "|data):/i.test(e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action')))"
                    + ".length")
                == .number(0))
        do {
            let alert = try phone.command("GET", "/alert/text")
            Issue.record("a dialog is open: \(alert)")
        } catch let failure as WebDriverFailure {
            #expect(failure.error == "no such alert", "\(failure)")
        }
    }

    /// Ada's phone number as the API gives it to the paired browser's cookie.
    private func adaPhone(_ box: ContactsBox, _ paired: String) throws -> String? {
        try jsonObject(try box.curl("/api/contacts/ada", paired).body)["phone"] as? String
    }

    /// Makes every paired browser's pairing 11 minutes older, in the `pairings` file (`browser ID DIGEST PAIRED-AT
    /// LAST-USED ADDRESS`), replaced as the box replaces it.
    private func agePairing(_ box: ContactsBox) throws {
        let path = box.work.path + "/store/pairings"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            var fields = line.split(separator: " ").map(String.init)
            if fields.count == 6, fields[0] == "browser", let pairedAt = Int64(fields[3]) {
                fields[3] = String(pairedAt - 660)
            }
            return fields.joined(separator: " ")
        }
        #expect(lines.contains { $0.hasPrefix("browser ") })
        let temporary = path + ".aged"
        try (lines.joined(separator: "\n") + "\n").write(toFile: temporary, atomically: false, encoding: .utf8)
        chmod(temporary, 0o600)
        #expect(rename(temporary, path) == 0)
    }

    private func shot(_ phone: WebDriverSession, _ name: String) throws {
        let saved = try phone.saveScreenshot("contacts-" + name)
        #expect(saved.isPNG && saved.width == Self.phoneWidth, "\(saved.path)")
    }
}

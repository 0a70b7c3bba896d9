import Synchronization
import TestSupport
import Testing

@testable import StatusServer

/// The settings the daemon would answer, held here: the test's stand-in for the daemon's `PageSettings` (which its
/// own tests run on real files), so that the page's script is what is tested.
final class SettingsStandIn: Sendable {
    let view: Mutex<SettingsView>
    let changes = Recorder<[String: String]>()

    init() {
        var view = SettingsPageTests.view
        view.boxNameFixed = false
        self.view = Mutex(view)
    }

    func answer(_ request: SettingsRequest) -> SettingsAnswer {
        guard case .change(let form) = request else { return .view(view.withLock { $0 }) }
        changes.record(form)
        return view.withLock { view in
            guard form["version"] == view.version else {
                return .refused(status: 412, message: "the settings were changed meanwhile")
            }
            let index = view.remotes.firstIndex { $0.name == form["remote"] }
            switch (form["action"], index) {
            case ("interval", _): view.interval = form["value"] ?? ""
            case ("pause", let index?), ("resume", let index?): view.remotes[index].paused = form["action"] == "pause"
            case ("rename", let index?): view.remotes[index].name = form["value"] ?? ""
            case ("conflict", let index?): view.remotes[index].conflict = form["value"] ?? ""
            case ("remove", let index?): view.remotes.remove(at: index)
            case ("page-password", _): view.pagePassword = form["value"] != ""
            default: return .refused(status: 400, message: "box name: not a name")
            }
            view.version = String(Int(view.version, radix: 16).map { $0 + 1 } ?? 0, radix: 16)
            view.version = String(repeating: "0", count: 16 - view.version.count) + view.version
            return .view(view)
        }
    }
}

/// Settings on the page in Debian's Chromium at phone width: offered to a paired browser only, each change posted
/// with the settings' version and the browser's token, the answer shown.
@Suite(
    "Settings in a real browser at phone width",
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .serialized, .timeLimit(.minutes(5)))
struct SettingsBrowserTests {
    @Test("hidden until paired; the interval and Resume are saved with the version; a refusal is shown")
    func settings() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let pairings = PairedBrowsers(folder: nil)
        let requests = PairingRecorder()
        let standIn = SettingsStandIn()
        let server = try StatusServer(
            settings: .init(host: "127.0.0.1", port: 0), snapshot: { makeSnapshot() }, syncNow: {},
            pairings: pairings, pair: { requests.record($0) }, pageSettings: { standIn.answer($0) },
            logger: .init(label: "test") { _ in RecordingLogHandler(records: LogRecords()) })
        let driver = try ChromeDriver()
        let phone = try driver.session(width: PairingBrowserTests.phoneWidth)
        try phone.navigate(to: "http://127.0.0.1:\(server.port)/")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        #expect(try phone.attribute("hidden", of: "#settings") != nil)

        try phone.click("#pair")
        let request = try waitUntil("the pairing request") { requests.requests.first }
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
        let nas = try phone.waitForElement(#"#settings-remotes li.setting-remote[data-name="nas"]"#)
        #expect(try phone.attribute("hidden", of: "#settings") == nil)
        #expect(try phone.property("value", of: "#interval") == .string("15m"))
        #expect(try phone.text(nas).contains("Paused"))
        try phone.scroll(to: "#settings")
        #expect(try phone.saveScreenshot("settings-1-paired").isPNG)

        _ = try phone.execute(#"document.getElementById("interval").value = "1h""#)
        try phone.click("#interval-form button")
        try phone.waitForText(of: "#settings-result", containing: "Saved.")
        #expect(
            standIn.changes.requests.first?.filter { $0.key != "@browser" }
                == ["version": "00000000000000ff", "action": "interval", "value": "1h"])
        try phone.click(#"#settings-remotes li[data-name="nas"] summary"#)
        try phone.click(#"#settings-remotes li[data-name="nas"] button.resume"#)
        try phone.waitForElement(#"#settings-remotes li[data-name="nas"] button.pause"#)
        #expect(standIn.changes.requests.last?["version"] == "0000000000000100")

        try phone.sendKeys("my box!", to: "#box-name")
        try phone.click("#box-name-form button")
        try phone.waitForText(of: "#settings-result", containing: "box name: not a name")
        try phone.scroll(to: "#settings")
        #expect(try phone.saveScreenshot("settings-2-refused").isPNG)
        #expect(standIn.view.withLock { $0.interval } == "1h")
    }

    @Test(
        "an address book renamed, its conflict policy and password changed, removed once confirmed; the page's password"
    )
    func addressBook() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let pairings = PairedBrowsers(folder: nil)
        let standIn = SettingsStandIn()
        standIn.view.withLock {
            $0.remotes.append(
                SettingsView.Remote(
                    name: "icloud", kind: "carddav", location: "https://contacts.icloud.com/1/carddavhome/card/",
                    username: "ann@icloud.com", paused: false, fixed: false, origin: "settings.toml:9"))
        }
        let setup = SetupStandIn()
        let requests = PairingRecorder()
        let server = try StatusServer(
            settings: .init(host: "127.0.0.1", port: 0), snapshot: { makeSnapshot() }, syncNow: {},
            pairings: pairings, pair: { requests.record($0) }, pageSettings: { standIn.answer($0) },
            setup: { setup.answer($0) },
            logger: .init(label: "test") { _ in RecordingLogHandler(records: LogRecords()) })
        let driver = try ChromeDriver()
        let phone = try driver.session(width: PairingBrowserTests.phoneWidth)
        try phone.navigate(to: "http://127.0.0.1:\(server.port)/")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        try phone.click("#pair")
        pairings.decide(id: try waitUntil("the pairing request") { requests.requests.first }.id, approved: true)
        let icloud = #"#settings-remotes li[data-name="icloud"]"#
        /// Opens the remote's Change, wherever a re-rendering left it.
        func open(_ item: String) throws {
            _ = try phone.execute("document.querySelector('\(item) details').open = true")
        }
        try phone.waitForElement(icloud)
        #expect(try phone.text("#page-password-state").contains("anyone on your home network"))
        #expect(try phone.elements("#settings-remotes li[data-name=nas] form.replace-password").isEmpty)

        try open(icloud)
        _ = try phone.execute(
            #"var s = document.querySelector('#settings-remotes li[data-name="icloud"] select.conflict');"#
                + #"s.value = "remote"; s.dispatchEvent(new Event("change"));"#)
        try phone.waitForText(of: "#settings-result", containing: "Saved.")
        #expect(standIn.changes.requests.last?["action"] == "conflict")
        #expect(standIn.changes.requests.last?["value"] == "remote")

        try open(icloud)
        try phone.sendKeys("new-app-password", to: icloud + " form.replace-password input")
        try phone.click(icloud + " form.replace-password button")
        try phone.waitForText(of: "#settings-result", containing: "The new password works, and is saved.")
        let replaced = setup.asked.requests.compactMap { if case .replacePassword(let form) = $0 { form } else { nil } }
        #expect(replaced.map { [$0["remote"], $0["password"]] } == [["icloud", "new-app-password"]])
        // The setup section is not taken for a failed or finished add.
        #expect(try phone.text("#setup-status").isEmpty)

        try open(icloud)
        _ = try phone.execute(
            #"document.querySelector('#settings-remotes li[data-name="icloud"] form.rename input').value = "family""#)
        try phone.click(icloud + " form.rename button")
        let family = #"#settings-remotes li[data-name="family"]"#
        try phone.waitForElement(family)
        #expect(standIn.changes.requests.last?["remote"] == "icloud")

        try open(family)
        try phone.click(family + " button.remove")
        let confirm = try phone.waitForText(of: family + " .remove-confirm", containing: "nothing on the server")
        #expect(confirm.contains("keeps its contacts"), "\(confirm)")
        try phone.scroll(to: family)
        #expect(try phone.saveScreenshot("settings-3-remove-confirm").isPNG)
        try phone.click(family + " button.remove-no")
        #expect(try phone.elements(family + " .remove-confirm").isEmpty)
        #expect(standIn.changes.requests.last?["action"] == "rename")
        try phone.click(family + " button.remove")
        try phone.click(family + " button.remove-yes")
        try waitUntil("the remote to go") { try phone.elements(family).isEmpty ? true : nil }
        #expect(
            standIn.changes.requests.last?.filter { $0.key != "@browser" }
                == ["action": "remove", "remote": "family", "version": "0000000000000101"])

        try phone.sendKeys("kitchen door", to: "#page-password")
        try phone.sendKeys("kitchen doo", to: "#page-password-again")
        try phone.click("#page-password-form button[type=submit]")
        try phone.waitForText(of: "#settings-result", containing: "Type the same new password twice.")
        try phone.sendKeys("r", to: "#page-password-again")
        try phone.click("#page-password-form button[type=submit]")
        try phone.waitForText(of: "#settings-result", containing: "The browser asks for it next")
        #expect(standIn.changes.requests.last?["value"] == "kitchen door")
        #expect(try phone.text("#page-password-state").contains("Set"))
        try phone.click("#page-password-remove")
        try phone.waitForText(of: "#page-password-state", containing: "anyone on your home network")
    }
}

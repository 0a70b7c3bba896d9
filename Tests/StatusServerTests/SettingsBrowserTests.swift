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
            switch form["action"] {
            case "interval": view.interval = form["value"] ?? ""
            case "pause", "resume": view.remotes[0].paused = form["action"] == "pause"
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
        #expect(standIn.changes.requests.first == ["version": "00000000000000ff", "action": "interval", "value": "1h"])
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
}

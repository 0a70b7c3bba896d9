import Synchronization
import TestSupport
import Testing

@testable import StatusServer

/// The daemon's side of adding an address book, held here: the test's stand-in for `PageSetup` (which its own
/// tests, and `PageSetupCommandTests` against Radicale, run for real), so that the page's script is what is tested.
final class SetupStandIn: Sendable {
    static let providers = [
        SetupView.Provider(
            id: "icloud", title: "iCloud", help: "Make an app-specific password at appleid.apple.com.",
            needsAddress: false, needsLogin: true),
        SetupView.Provider(
            id: "folder", title: "A folder on the box", help: "No password.", needsAddress: true, needsLogin: false),
    ]
    let view = Mutex(SetupView(phase: .idle, providers: providers))
    let asked = Recorder<SetupRequest>()

    func answer(_ request: SetupRequest) -> SetupAnswer {
        asked.record(request)
        return .view(
            view.withLock { view in
                switch request {
                case .find(let form) where form["password"] == "wrong":
                    view.phase = .failed
                    view.message = "the server refused the login: make a new app password"
                case .find:
                    view.phase = .found
                    view.books = [
                        SetupView.Book(url: "https://contacts.example/ann/card/", name: "Contacts", contacts: nil)
                    ]
                case .add:
                    view.phase = .added
                    view.added = ["contacts"]
                case .cancel: view.phase = .idle
                case .replacePassword(let form):
                    view.remote = form["remote"]
                    view.phase = .replaced
                case .signIn, .signedIn: view.phase = .signingIn
                case .read: break
                }
                return view
            })
    }
}

/// Adding an address book on the page in Debian's Chromium at phone width: a box with nothing to sync opens on it.
@Suite(
    "Adding an address book in a real browser at phone width",
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .serialized, .timeLimit(.minutes(5)))
struct SetupBrowserTests {
    @Test("needs setup: the page opens on pairing and Add; a wrong password's words; find, choose, add")
    func setUp() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let pairings = PairedBrowsers(folder: nil)
        let requests = PairingRecorder()
        let standIn = SetupStandIn()
        var needsSetup = makeSnapshot(state: "setup")
        needsSetup.summary = "Needs setup: no address book yet"
        needsSetup.remotes = []
        let snapshot = needsSetup
        let server = try StatusServer(
            settings: .init(host: "127.0.0.1", port: 0), snapshot: { snapshot }, syncNow: {}, pairings: pairings,
            pair: { requests.record($0) }, setup: { standIn.answer($0) },
            logger: .init(label: "test") { _ in RecordingLogHandler(records: LogRecords()) })
        let driver = try ChromeDriver()
        let phone = try driver.session(width: PairingBrowserTests.phoneWidth)
        try phone.navigate(to: "http://127.0.0.1:\(server.port)/")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        // Opened on pairing, right under the state: the first thing a household does with a new box.
        #expect(
            try phone.execute("return document.querySelector('header').nextElementSibling.id") == .string("pairing"))
        #expect(try phone.attribute("hidden", of: "#setup") != nil)

        try phone.click("#pair")
        let request = try waitUntil("the pairing request") { requests.requests.first }
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "idle")
        #expect(
            try phone.execute("return document.getElementById('pairing').nextElementSibling.id") == .string("setup"))
        #expect(try phone.text("#setup-help") == "Make an app-specific password at appleid.apple.com.")
        // Plain HTTP here: the page says where the password goes.
        #expect(try phone.attribute("hidden", of: "#setup-wire") == nil)
        #expect(try phone.attribute("hidden", of: "#setup-address") != nil)
        try phone.scroll(to: "#setup")
        #expect(try phone.saveScreenshot("setup-1-choose").isPNG)

        try phone.sendKeys("ann@icloud.com", to: "#setup-username")
        try phone.sendKeys("wrong", to: "#setup-password")
        try phone.click("#setup-find-button")
        try phone.waitForText(of: "#setup-status", containing: "make a new app password")
        #expect(try phone.property("value", of: "#setup-password") == .string(""))
        try phone.sendKeys("abcd-efgh-ijkl-mnop", to: "#setup-password")
        try phone.click("#setup-find-button")
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "found")
        #expect(try phone.text("#setup-books").contains("Contacts"))
        try phone.scroll(to: "#setup")
        #expect(try phone.saveScreenshot("setup-2-found").isPNG)
        try phone.click("#setup-add-button")
        try phone.waitForText(of: "#setup-status", containing: "Added contacts: the first sync starts now.")
        #expect(try phone.saveScreenshot("setup-3-added").isPNG)

        let finds = standIn.asked.requests.compactMap { if case .find(let form) = $0 { form } else { nil } }
        #expect(finds.map { $0["password"] } == ["wrong", "abcd-efgh-ijkl-mnop"])
        #expect(finds.last?["provider"] == "icloud" && finds.last?["username"] == "ann@icloud.com")
        let adds = standIn.asked.requests.compactMap { if case .add(let form) = $0 { form } else { nil } }
        #expect(adds.map { $0["books"] } == ["https://contacts.example/ann/card/"])
        // Choosing a folder asks for its path, and no login.
        try phone.click(#"#setup-providers input[value="folder"]"#)
        #expect(try phone.attribute("hidden", of: "#setup-address") == nil)
        #expect(try phone.attribute("hidden", of: "#setup-password") != nil)
    }
}

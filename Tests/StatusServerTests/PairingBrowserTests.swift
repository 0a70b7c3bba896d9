import TestSupport
import Testing

@testable import StatusServer

/// Pairing on the page as a person does it, in Debian's Chromium driven through chromedriver at phone width
/// (412 × 915), against the real server. The test plays the box's button: `pairings.decide` is what the daemon's
/// main loop calls after a short press. Without chromium-driver these tests fail (`TestRequirement`). Each step
/// leaves a screenshot, `.build/artefacts/pairing-*.png`.
@Suite(
    "Pairing in a real browser at phone width",
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    // One Chromium at a time: the machine has two cores, shared with the rest of the tests.
    .serialized, .timeLimit(.minutes(5)))
struct PairingBrowserTests {
    static let phoneWidth = 412
    static let undoButton = #"#runs li[data-run="42"] button.undo-run"#
    static let notPaired = "Refused: this browser is not paired with the box."

    @Test("Paired with the button: waiting, then paired by itself, HttpOnly; undo from it only; Forget unpairs it")
    func button() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let pairings = PairedBrowsers(folder: nil)
        let requests = PairingRecorder()
        let undo = UndoRecorder()
        let server = try makeServer(
            snapshot: makeUndoSnapshot(), undo: undo, pairings: pairings, pair: { requests.record($0) })
        let page = "http://127.0.0.1:\(server.port)/"
        let driver = try ChromeDriver()
        let phone = try driver.session(width: Self.phoneWidth)
        try phone.navigate(to: page)
        // Set by the script from /api/pairing: the server writes data-pairing="".
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        #expect(try phone.execute("return window.innerWidth") == .number(Double(Self.phoneWidth)))
        try Self.screenshot(phone, "pairing-1-none")

        try phone.click("#pair")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "waiting")
        #expect(try phone.text("#pairing-text").contains("Now press the button on the box once"))
        #expect(try phone.attribute("hidden", of: "#pair-form") != nil, "Pair this browser is still offered")
        let request = try waitUntil("the server to hand the pairing request to the daemon") { requests.requests.first }
        #expect(request.address == "127.0.0.1")
        try Self.screenshot(phone, "pairing-2-waiting")

        // The box's button, pressed: the page is told by nobody, it asks every 1.5 s while it waits.
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
        let this = try phone.waitForElement("#browsers li.browser.this")
        #expect(try phone.attribute("data-id", of: this) == request.id)
        #expect(try phone.text(this).contains("This browser at 127.0.0.1"))
        #expect(try phone.text("#pairing-text").hasPrefix("This browser is paired with the box"))
        #expect(requests.requests.count == 1)
        // The browser keeps the secret, where the page's script (or anything injected into it) cannot read it.
        let cookie = try #require(try phone.cookies().first { $0.name == RequestHandler.cookieName })
        #expect(cookie.httpOnly)
        #expect(cookie.sameSite == "Strict")
        let scriptSees = try phone.execute("return document.cookie").string
        #expect(scriptSees != nil)
        #expect(scriptSees?.contains(RequestHandler.cookieName) == false, "document.cookie: \(scriptSees ?? "")")
        try Self.screenshot(phone, "pairing-3-paired")

        // A change from the paired browser reaches the daemon.
        try phone.click(Self.undoButton)
        try waitUntil("the server to hand the undo's preview to the daemon") { undo.requests.isEmpty ? nil : () }
        #expect(undo.requests == [.preview(run: 42)])
        #expect(try phone.text("#undo-result") == "")

        // Another browser, never paired, is refused and told how to pair.
        let other = try driver.session(width: Self.phoneWidth)
        try other.navigate(to: page)
        try other.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        try other.click(Self.undoButton)
        try other.waitForText(of: "#undo-result", containing: Self.notPaired)
        try Self.screenshot(other, "pairing-4-unpaired-undo", at: "section:has(> #undo-result)")
        other.quit()
        #expect(undo.requests == [.preview(run: 42)])

        // Forget this browser: back to unpaired, and its changes are refused from then on.
        try phone.click("#browsers li.browser.this button.forget")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        #expect(pairings.list().isEmpty)
        #expect(try phone.elements("#browsers li").isEmpty)
        #expect(try phone.attribute("hidden", of: "#pair-form") == nil, "Pair this browser is not offered again")
        try phone.click(Self.undoButton)
        try phone.waitForText(of: "#undo-result", containing: Self.notPaired)
        #expect(undo.requests == [.preview(run: 42)])
        try Self.screenshot(phone, "pairing-5-forgotten", at: "section:has(> #undo-result)")
    }

    @Test("A request the button did not answer shows refused, and the page offers to ask again")
    func refused() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let page = try UnpairedPage()
        let (pairings, requests, phone) = (page.pairings, page.requests, page.phone)
        try phone.click("#pair")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "waiting")
        let request = try waitUntil("the server to hand the pairing request to the daemon") { requests.requests.first }

        pairings.decide(id: request.id, approved: false)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "refused")
        #expect(try phone.text("#pairing-text").hasPrefix("Not paired: the button was not pressed in time"))
        #expect(try phone.elements("#browsers li").isEmpty)
        #expect(pairings.list().isEmpty)
        try Self.screenshot(phone, "pairing-6-refused")

        try phone.click("#pair")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "waiting")
        #expect(requests.requests.count == 2)
    }

    @Test("A double tap on Pair this browser asks the box once, and the press then pairs this browser")
    func doubleTap() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let page = try UnpairedPage()
        let (pairings, requests, phone) = (page.pairings, page.requests, page.phone)
        // Both taps land before the first answer arrives, as a quick double tap on a phone does.
        try phone.execute("var pair = document.getElementById('pair'); pair.click(); pair.click();")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "waiting")
        let request = try waitUntil("the server to hand the pairing request to the daemon") { requests.requests.first }
        // The answer to a second request would have come by now.
        try phone.execute("return new Promise(function (done) { setTimeout(done, 300); });")
        #expect(requests.requests.count == 1)
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
    }

    @Test("Forgotten at the box while the page shows it paired: the next change is refused and the page says so")
    func forgottenAtTheBox() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let page = try UnpairedPage(snapshot: makeUndoSnapshot())
        let (pairings, requests, undo, phone) = (page.pairings, page.requests, page.undo, page.phone)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        try phone.click("#pair")
        let request = try waitUntil("the server to hand the pairing request to the daemon") { requests.requests.first }
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")

        // The button held 10 s: every browser forgotten, and the page is not told.
        pairings.forgetAll()
        try phone.click(Self.undoButton)
        try phone.waitForText(of: "#undo-result", containing: Self.notPaired)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
        #expect(try phone.elements("#browsers li").isEmpty)
        #expect(undo.requests.isEmpty)
    }

    @Test("While it waits for the button, a poll that fails (Wi-Fi gone a moment) does not stop the page asking")
    func pollSurvivesAFailure() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let page = try UnpairedPage()
        let (pairings, requests, phone) = (page.pairings, page.requests, page.phone)
        try phone.click("#pair")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "waiting")
        let request = try waitUntil("the server to hand the pairing request to the daemon") { requests.requests.first }
        // The page's next two questions to /api/pairing fail as a dropped connection does; later ones go through.
        try phone.execute(
            """
            var realFetch = window.fetch;
            window.failedPolls = 0;
            window.fetch = function (url, options) {
              if (String(url).indexOf("/api/pairing") === 0 && window.failedPolls < 2) {
                window.failedPolls += 1;
                return Promise.reject(new TypeError("Failed to fetch"));
              }
              return realFetch(url, options);
            };
            """)
        try waitUntil("the page's first poll to fail") {
            try phone.execute("return window.failedPolls").number.flatMap { $0 >= 1 ? () : nil }
        }
        pairings.decide(id: request.id, approved: true)
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired", seconds: 15)
    }

    @Test("The one-time code: a wrong one is refused with the reason, the right one pairs this browser")
    func code() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let folder = try TemporaryDirectory()
        let pairings = PairedBrowsers(folder: folder.path)
        let requests = PairingRecorder()
        let server = try makeServer(pairings: pairings, pair: { requests.record($0) })
        let code = try PairedBrowsers.issueCode(folder: folder.path)
        let wrong = (code.first == "1" ? "2" : "1") + code.dropFirst()
        let driver = try ChromeDriver()
        let phone = try driver.session(width: Self.phoneWidth)
        try phone.navigate(to: "http://127.0.0.1:\(server.port)/")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")

        // Typed and sent with Enter (a phone keyboard's Go key); the right one below with the button.
        try phone.sendKeys(wrong + WebDriverSession.enterKey, to: "#pair-code")
        try phone.waitForText(of: "#pairing-result", containing: "That pairing code is wrong, used or expired.")
        #expect(try phone.attribute("data-pairing", of: "#pairing") == "none")
        #expect(try phone.property("value", of: "#pair-code") == .string(""), "the field keeps the code sent")
        #expect(pairings.list().isEmpty)
        try Self.screenshot(phone, "pairing-7-wrong-code")

        try phone.sendKeys(code, to: "#pair-code")
        try phone.click("#code-form button[type=submit]")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
        let this = try phone.waitForElement("#browsers li.browser.this")
        #expect(try phone.attribute("data-id", of: this) == pairings.list().first?.id)
        #expect(try phone.text("#pairing-result") == "")
        #expect(try phone.attribute("hidden", of: "#code-form") != nil, "the code is still asked for")
        // No button was involved.
        #expect(requests.requests.isEmpty)
        try Self.screenshot(phone, "pairing-8-code-paired")
    }

    /// Saves the step's screenshot and checks it is a PNG as wide as the phone.
    private static func screenshot(
        _ session: WebDriverSession, _ name: String, at selector: String = "#pairing"
    ) throws {
        try session.scroll(to: selector)
        let shot = try session.saveScreenshot(name)
        #expect(shot.isPNG, "not a PNG: \(shot.path)")
        #expect(shot.width == phoneWidth, "\(shot.path) is \(shot.width ?? 0) pixels wide")
    }
}

/// The page open in Chromium at phone width, against a server whose pairing and undo requests are recorded, and no
/// browser paired yet (`#pairing[data-pairing=none]`, drawn by the script).
final class UnpairedPage {
    let pairings = PairedBrowsers(folder: nil)
    let requests = PairingRecorder()
    let undo = UndoRecorder()
    let server: StatusServer
    let driver: ChromeDriver
    let phone: WebDriverSession

    init(snapshot: StatusSnapshot = makeSnapshot()) throws {
        let (requests, undo) = (requests, undo)
        server = try makeServer(
            snapshot: snapshot, undo: undo, pairings: pairings, pair: { requests.record($0) })
        driver = try ChromeDriver()
        phone = try driver.session(width: PairingBrowserTests.phoneWidth)
        try phone.navigate(to: "http://127.0.0.1:\(server.port)/")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")
    }
}

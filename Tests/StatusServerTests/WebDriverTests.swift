import TestSupport
import Testing

@testable import StatusServer

/// The test's own WebDriver client (Tests/TestSupport/WebDriver*.swift), checked where its mistakes would hide:
/// text that JSON must escape, and a wait that runs out.
@Suite(
    "The WebDriver client",
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .timeLimit(.minutes(2)))
struct WebDriverTests {
    @Test("Any text goes to the page and back unchanged; a wait that runs out says what it awaited and last saw")
    func roundTripAndTimeout() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let server = try makeServer()
        let driver = try ChromeDriver()
        let browser = try driver.session()
        try browser.navigate(to: "http://127.0.0.1:\(server.port)/")
        try browser.waitForAttribute("data-pairing", of: "#pairing", toBe: "none")

        // Quotes, a backslash, control characters, markup, a character beyond the BMP (a surrogate pair in JSON).
        let hostile = hostileName + "\\ \u{1}\t\r \u{7F} \u{1F600} ü"
        #expect(try browser.execute("return arguments[0]", [.string(hostile)]) == .string(hostile))
        let echoed = try browser.execute(
            "return {text: arguments[0], length: arguments[0].length, list: [1.5, true, null]}", [.string(hostile)])
        #expect(echoed["text"] == .string(hostile))
        #expect(echoed["length"] == .number(Double(hostile.utf16.count)))
        #expect(echoed["list"] == [.number(1.5), true, .null])

        let started = ContinuousClock.now
        do {
            try browser.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired", seconds: 0.5)
            Issue.record("the wait did not run out")
        } catch {
            #expect("\(error)" == #"waited 0.5 s for #pairing's data-pairing to be "paired" (last seen: "none")"#)
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        do {
            try browser.waitForElement("#no-such-thing", seconds: 0.3)
            Issue.record("the wait did not run out")
        } catch {
            #expect("\(error)".hasPrefix("waited 0.3 s for an element matching #no-such-thing; last: "))
            #expect("\(error)".contains("no such element"))
        }
    }
}

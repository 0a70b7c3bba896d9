/// An element found in the page: chromedriver's reference, and the selector it was found by (for failures).
public struct WebElement: Sendable, Equatable {
    public var id: String
    public var selector: String
}

/// A cookie as the browser keeps it, HttpOnly ones included (WebDriver sees what the page's script cannot).
public struct WebDriverCookie: Sendable, Equatable {
    public var name: String
    public var value: String
    public var path: String?
    public var httpOnly: Bool
    public var sameSite: String?
}

/// One headless Chromium driven through chromedriver: what the browser tests do with a page. The convenience
/// methods take a CSS selector and find the element afresh each time, as the page's script redraws parts of it.
/// Closed (the session deleted, Chromium gone) by `quit` or when the object goes away; the driver it came from is
/// kept alive as long as it is.
public final class WebDriverSession {
    /// The W3C key of an element reference in a JSON answer.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// The Enter key, for `sendKeys` (W3C WebDriver's code point for it): submits the form a field is in.
    public static let enterKey = "\u{E007}"

    public let id: String
    public let driver: ChromeDriver
    private let profile: TemporaryDirectory
    private var isOpen = true

    init(driver: ChromeDriver, width: Int, height: Int) throws {
        self.driver = driver
        profile = try TemporaryDirectory(prefix: "contactbox-chromium")
        let arguments: [WebDriverJSON] = [
            // The new headless mode is the real browser without a window; as root, Chromium's sandbox cannot start.
            "--headless=new", "--no-sandbox", "--disable-gpu", .string("--window-size=\(width),\(height)"),
            .string("--user-data-dir=\(profile.path)"), "--no-first-run", "--hide-scrollbars",
        ]
        let capabilities: WebDriverJSON = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": .string(ChromeDriver.chromiumPath), "args": .array(arguments),
                        // A desktop window is at least 500 pixels wide, whatever --window-size says: a phone's
                        // width needs Chromium's phone emulation (the viewport meta tag read, touch, one device
                        // pixel per CSS pixel so that screenshots measure in CSS pixels).
                        "mobileEmulation": [
                            "deviceMetrics": [
                                "width": .number(Double(width)), "height": .number(Double(height)), "pixelRatio": 1,
                                "mobile": true, "touch": true,
                            ]
                        ],
                    ],
                    // A page of the box loads in milliseconds: a hang should fail the step, not the suite's limit.
                    "timeouts": ["pageLoad": 20_000, "script": 10_000, "implicit": 0],
                ]
            ]
        ]
        let answer: WebDriverJSON
        do {
            answer = try driver.command("POST", "/session", capabilities)
        } catch {
            throw WebDriverFailure("no browser session: \(error)\nchromedriver's log: \(driver.logTail())")
        }
        guard let id = answer["sessionId"]?.string else {
            throw WebDriverFailure("no session id in chromedriver's answer: \(answer.text)")
        }
        self.id = id
    }

    deinit {
        quit()
    }

    /// Deletes the session: Chromium quits. Once only; a failure is left to chromedriver's own end.
    public func quit() {
        guard isOpen else { return }
        isOpen = false
        _ = try? driver.command("DELETE", "/session/\(id)", timeout: 20)
    }

    /// A command within this session (`path` after `/session/ID`).
    @discardableResult
    public func command(_ method: String, _ path: String, _ body: WebDriverJSON? = nil) throws -> WebDriverJSON {
        guard isOpen else { throw WebDriverFailure("session \(id) is closed") }
        // A POST always carries a JSON object, an empty one when the command takes no parameters.
        let sent: WebDriverJSON? = method == "POST" ? body ?? .object([:]) : body
        return try driver.command(method, "/session/\(id)" + path, sent)
    }

    // MARK: Navigation

    /// Opens `url` and returns once the page has loaded (its scripts have started, not necessarily fetched).
    public func navigate(to url: String) throws {
        try command("POST", "/url", ["url": .string(url)])
    }

    public func currentURL() throws -> String {
        try command("GET", "/url").string ?? ""
    }

    // MARK: Elements

    /// The first element `selector` matches; fails with W3C's "no such element" when none does.
    public func element(_ selector: String) throws -> WebElement {
        let answer = try command("POST", "/element", ["using": "css selector", "value": .string(selector)])
        guard let id = answer[Self.elementKey]?.string else {
            throw WebDriverFailure("no element reference for \(selector): \(answer.text)")
        }
        return WebElement(id: id, selector: selector)
    }

    /// Every element `selector` matches, in document order.
    public func elements(_ selector: String) throws -> [WebElement] {
        let answer = try command("POST", "/elements", ["using": "css selector", "value": .string(selector)])
        return (answer.array ?? []).compactMap { item in
            item[Self.elementKey]?.string.map { WebElement(id: $0, selector: selector) }
        }
    }

    /// Clicks it as a person would: scrolled into view, and refused ("element click intercepted") when something
    /// covers it, or ("element not interactable") when it is hidden.
    public func click(_ element: WebElement) throws {
        try command("POST", "/element/\(element.id)/click")
    }

    public func click(_ selector: String) throws {
        try click(element(selector))
    }

    /// Types `text` into it, key by key, after what it holds.
    public func sendKeys(_ text: String, to element: WebElement) throws {
        try command("POST", "/element/\(element.id)/value", ["text": .string(text)])
    }

    public func sendKeys(_ text: String, to selector: String) throws {
        try sendKeys(text, to: element(selector))
    }

    /// Its text as shown: hidden parts leave nothing.
    public func text(_ element: WebElement) throws -> String {
        try command("GET", "/element/\(element.id)/text").string ?? ""
    }

    public func text(_ selector: String) throws -> String {
        try text(element(selector))
    }

    /// An attribute's value; nil when it has none.
    public func attribute(_ name: String, of element: WebElement) throws -> String? {
        try command("GET", "/element/\(element.id)/attribute/\(name)").string
    }

    public func attribute(_ name: String, of selector: String) throws -> String? {
        try attribute(name, of: element(selector))
    }

    /// A DOM property's value (an input's `value` as typed, where the attribute keeps the page's first value).
    public func property(_ name: String, of selector: String) throws -> WebDriverJSON {
        try command("GET", "/element/\(element(selector).id)/property/\(name)")
    }

    /// Runs `script` as a function's body in the page (`arguments[0]`… are `arguments`); what it returns.
    @discardableResult
    public func execute(_ script: String, _ arguments: [WebDriverJSON] = []) throws -> WebDriverJSON {
        try command("POST", "/execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    /// Runs `script` asynchronously: it ends by calling its last argument with the result (a `fetch` awaited).
    public func executeAsync(_ script: String, _ arguments: [WebDriverJSON] = []) throws -> WebDriverJSON {
        try command("POST", "/execute/async", ["script": .string(script), "args": .array(arguments)])
    }

    /// Scrolls the page until `selector`'s element is at the top of the viewport (a screenshot shows it).
    public func scroll(to selector: String) throws {
        let found = try element(selector)
        try execute(
            "arguments[0].scrollIntoView({block: 'start', behavior: 'instant'})",
            [.object([Self.elementKey: .string(found.id)])])
    }
}

@available(*, unavailable) extension WebDriverSession: Sendable {}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a browser test waits for and keeps: an attribute, a text or an element to appear (each with a deadline), the
/// cookies, screenshots.
extension WebDriverSession {
    // MARK: Waits

    /// Waits until the attribute `name` of `selector`'s element is `value`; the failure says what it was last.
    public func waitForAttribute(
        _ name: String, of selector: String, toBe value: String, seconds: Double = 10
    ) throws {
        var seen = "nothing yet"
        try waitUntil("\(selector)'s \(name) to be \"\(value)\" (last seen: \(seen))", seconds: seconds) {
            let current = try attribute(name, of: selector)
            seen = current.map { "\"\($0)\"" } ?? "no such attribute"
            return current == value ? () : nil
        }
    }

    /// Waits until `selector`'s text contains `part`; returns the whole text.
    @discardableResult
    public func waitForText(of selector: String, containing part: String, seconds: Double = 10) throws -> String {
        var seen = "nothing yet"
        return try waitUntil("\(selector)'s text to contain \"\(part)\" (last seen: \"\(seen)\")", seconds: seconds) {
            let current = try text(selector)
            seen = current
            return current.contains(part) ? current : nil
        }
    }

    /// Waits until `selector` matches an element; returns it.
    @discardableResult
    public func waitForElement(_ selector: String, seconds: Double = 10) throws -> WebElement {
        try waitUntil("an element matching \(selector)", seconds: seconds) { try element(selector) }
    }

    // MARK: Cookies and screenshots

    /// Every cookie of the current page's site, HttpOnly ones included.
    public func cookies() throws -> [WebDriverCookie] {
        try (command("GET", "/cookie").array ?? []).map { cookie in
            WebDriverCookie(
                name: cookie["name"]?.string ?? "", value: cookie["value"]?.string ?? "", path: cookie["path"]?.string,
                httpOnly: cookie["httpOnly"]?.bool ?? false, sameSite: cookie["sameSite"]?.string)
        }
    }

    /// What the viewport shows now, as PNG bytes.
    public func screenshot() throws -> [UInt8] {
        let encoded = try command("GET", "/screenshot").string ?? ""
        guard let data = Data(base64Encoded: encoded) else {
            throw WebDriverFailure("the screenshot is not base64 (\(encoded.prefix(40))…)")
        }
        return Array(data)
    }

    /// Saves a screenshot as `.build/artefacts/NAME.png` in the checkout.
    @discardableResult
    public func saveScreenshot(_ name: String) throws -> Screenshot {
        let png = try screenshot()
        let folder = repositoryRoot + "/.build/artefacts"
        mkdir(repositoryRoot + "/.build", 0o755)
        mkdir(folder, 0o755)
        let path = folder + "/\(name).png"
        guard let file = fopen(path, "wb") else { throw WebDriverFailure("cannot write \(path): errno \(errno)") }
        let written = fwrite(png, 1, png.count, file)
        fclose(file)
        guard written == png.count else { throw WebDriverFailure("cannot write \(path)") }
        return Screenshot(path: path, png: png)
    }
}

/// A screenshot saved as an artefact.
public struct Screenshot: Sendable {
    public var path: String
    public var png: [UInt8]

    /// Whether the bytes start with PNG's signature.
    public var isPNG: Bool { png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }

    /// The width in pixels from the IHDR chunk, which PNG puts first: 32 bits, big-endian, at byte 16.
    public var width: Int? {
        guard isPNG, png.count >= 24 else { return nil }
        return png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    }
}

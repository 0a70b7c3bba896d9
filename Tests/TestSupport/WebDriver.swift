import Glibc

/// What went wrong talking to chromedriver or waiting in the browser, said so that a failed test reads on its own.
public struct WebDriverFailure: Error, CustomStringConvertible {
    /// The W3C error code chromedriver answered with ("no such element", "stale element reference"), if any.
    public var error: String?
    public var description: String

    public init(_ description: String, error: String? = nil) {
        self.description = description
        self.error = error
    }
}

/// Debian's chromedriver (package `chromium-driver`) on 127.0.0.1 and a free port, a child process stopped by PID
/// when the object goes away, driving Debian's Chromium through the W3C WebDriver protocol (JSON over HTTP, spoken
/// with `HTTPTestClient`: no library between the test and the wire). One driver serves any number of sessions, each
/// a headless browser with a throw-away profile: a test that needs two browsers starts one driver.
///
/// chromedriver leads a process group of its own, and Chromium with its helpers stays in it: stopping the group
/// leaves no browser behind even when a session was never closed.
public final class ChromeDriver {
    public static let driverPath = "/usr/bin/chromedriver"
    public static let chromiumPath = "/usr/bin/chromium"

    /// Why the browser tests cannot run here; nil when both programs are installed.
    public static let missing: String? = {
        if access(chromiumPath, X_OK) != 0 { return "Chromium is not installed at \(chromiumPath): run Deploy/test.sh" }
        if access(driverPath, X_OK) != 0 {
            return "chromedriver is not installed at \(driverPath) (Debian's chromium-driver): run Deploy/test.sh"
        }
        return nil
    }()

    public let port: UInt16
    /// What chromedriver printed: its start, its warnings, and a browser's complaints.
    public let logPath: String
    private let folder: TemporaryDirectory
    private let process: ChildProcess

    /// Starts chromedriver and waits until its `/status` says it is ready for sessions (`seconds` at most).
    public init(readyWithin seconds: Double = 20) throws {
        if let missing = Self.missing { throw WebDriverFailure(missing) }
        folder = try TemporaryDirectory(prefix: "contactbox-chromedriver")
        logPath = folder.file("chromedriver.log")
        port = try freeLoopbackPort()
        // Local connections only (its default), on the port chosen above.
        process = try ChildProcess(
            path: Self.driverPath, arguments: ["--port=\(port)"], logPath: logPath, newProcessGroup: true)
        do {
            try process.waitUntilServing("chromedriver (port \(port))", seconds: seconds, log: logTail) {
                (try? command("GET", "/status", timeout: 2))?["ready"]?.bool == true
            }
        } catch {
            process.terminate(grace: 2)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// The process id while chromedriver runs.
    public var processIdentifier: Int32? { process.isRunning ? process.pid : nil }

    /// A new browser session: headless Chromium, `width` × `height` CSS pixels (a phone by default), its own
    /// profile. Takes a second or two.
    public func session(width: Int = 412, height: Int = 915) throws -> WebDriverSession {
        try WebDriverSession(driver: self, width: width, height: height)
    }

    /// Stops chromedriver and whatever of its group is left (browsers of sessions never closed), by PID.
    public func stop() {
        process.terminate(grace: 2)
    }

    public func logTail() -> String {
        guard let file = fopen(logPath, "rb") else { return "(no log)" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes.suffix(2000), as: UTF8.self)
    }

    /// One WebDriver command: `method path` with `body` as JSON; the answer's `value`. An answer other than 200
    /// throws its W3C error code and message. `timeout` bounds each send and receive, in seconds.
    public func command(
        _ method: String, _ path: String, _ body: WebDriverJSON? = nil, timeout: Int = 60
    ) throws -> WebDriverJSON {
        let response: HTTPTestResponse
        do {
            response = try HTTPTestClient.framedRequest(
                port: port, method: method, path: path,
                headers: body == nil ? [] : [("Content-Type", "application/json; charset=utf-8")],
                body: body?.text ?? "", timeout: timeout)
        } catch {
            let state = process.isRunning ? "running" : "exited"
            throw WebDriverFailure("\(method) \(path): \(error) (chromedriver \(state); its log: \(logTail()))")
        }
        let answer: WebDriverJSON
        do {
            answer = try WebDriverJSON.parse(response.body)
        } catch {
            throw WebDriverFailure("\(method) \(path): HTTP \(response.status), not JSON (\(error)): \(response.body)")
        }
        guard response.status == 200 else {
            let code = answer["value"]?["error"]?.string
            // The message's first line: chromedriver appends its build and a stack trace.
            let message = answer["value"]?["message"]?.string?.split(separator: "\n").first.map(String.init) ?? ""
            throw WebDriverFailure(
                "\(method) \(path): HTTP \(response.status), \(code ?? "no error code"): \(message)", error: code)
        }
        return answer["value"] ?? .null
    }
}

@available(*, unavailable) extension ChromeDriver: Sendable {}

/// Polls `probe` every `interval` until it returns a value, and returns that; after `seconds` fails, saying what was
/// awaited (`what` is read then, so it can tell what was last seen) and the last error. While waiting, an element
/// not there yet or redrawn under the probe, or a page that began to load under it (a form just sent: chromedriver's
/// "aborted by navigation"), counts as "not yet"; any other failure ends the wait.
public func waitUntil<T>(
    _ what: @autoclosure () -> String, seconds: Double = 10, interval: Duration = .milliseconds(100),
    _ probe: () throws -> T?
) throws -> T {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var lastError: WebDriverFailure?
    while true {
        do {
            if let value = try probe() { return value }
        } catch let failure as WebDriverFailure
            where ["no such element", "stale element reference"].contains(failure.error ?? "")
            || failure.description.contains("aborted by navigation")
        {
            lastError = failure
        }
        guard ContinuousClock.now < deadline else {
            let last = lastError.map { "; last: \($0.description)" } ?? ""
            throw WebDriverFailure("waited \(seconds) s for \(what())\(last)", error: "timeout")
        }
        usleep(useconds_t(interval / .microseconds(1)))
    }
}

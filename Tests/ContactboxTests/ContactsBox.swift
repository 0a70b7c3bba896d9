import Foundation
import TestSupport
import Testing

/// A box that syncs one Radicale address book (the remote `home`): the daemon (`contactbox run`) on a store of its
/// own, the status page on 127.0.0.1, a long interval (it syncs at start and when asked). With `terminal`, the daemon
/// runs in a pseudo-terminal (util-linux `script`), where its simulated panel reads keys as the demo's does: `press`
/// with `l` is a long press of the button, `q` stops it. Stopped when it goes away.
final class ContactsBox {
    let radicale: RadicaleServer
    let work: Workspace
    let port: UInt16
    let daemon: ChildProcess
    let log: String
    /// The write end of the FIFO that is the terminal's input; -1 without a terminal.
    private let keys: Int32

    init(cards: [(fileName: String, vcard: String)], terminal: Bool = false) throws {
        radicale = try RadicaleServer()
        try radicale.createAddressBook()
        try radicale.seedCards(cards)
        work = try Workspace()
        port = try freeLoopbackPort()
        log = work.path + "/daemon.log"
        let config = try work.carddavConfig(
            name: "home", url: radicale.addressBookURL(), username: RadicaleServer.username,
            password: RadicaleServer.password, blocks: Workspace.daemonSettings(port: port))
        try FileManager.default.createDirectory(atPath: work.path + "/store", withIntermediateDirectories: true)
        if terminal {
            let fifo = work.path + "/keys"
            guard mkfifo(fifo, 0o600) == 0 else { throw TestServerFailure("mkfifo \(fifo): errno \(errno)") }
            // Opened for reading and writing, so that neither end waits for the other and the input never ends.
            keys = open(fifo, O_RDWR | O_CLOEXEC)
            guard keys >= 0 else { throw TestServerFailure("open \(fifo): errno \(errno)") }
            // `script` gives the daemon a terminal of its own, in whose foreground it runs; what is written to the
            // FIFO is typed into it.
            daemon = try ChildProcess(
                path: "/usr/bin/script",
                arguments: ["-qfec", "exec '\(contactboxBinary)' run --config '\(config)'", "/dev/null"],
                logPath: log, inputPath: fifo)
        } else {
            keys = -1
            daemon = try RunCommandTests().start(config, log: log)
        }
        let first = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"state\":\"idle\"") && $0.contains("\"last_result\":\"ok\"")
        }
        guard first.contains("\"last_result\":\"ok\"") else {
            throw TestServerFailure("the first sync did not end well: \(first)\nthe log: \(ChildProcess.tail(of: log))")
        }
    }

    deinit {
        if keys >= 0 {
            // q stops the daemon as SIGTERM does (script would answer SIGTERM by killing it after a moment).
            press("q")
            var waited = 0
            while daemon.isRunning, waited < 1000 {
                usleep(10_000)
                waited += 1
            }
            close(keys)
        }
        _ = RunCommandTests().stop(daemon)
    }

    var page: String { "http://127.0.0.1:\(port)" }

    /// Types `key` into the daemon's terminal: `s` a short press, `l` a long press, `q` stop.
    func press(_ key: Character) {
        let bytes = Array(String(key).utf8)
        _ = write(keys, bytes, bytes.count)
    }

    /// `/api/status` as JSON.
    func status() throws -> [String: Any] {
        let answer = try HTTPTestClient.request(port: port, path: "/api/status")
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    }

    /// Asks for syncs (`POST /api/sync`, again every few seconds) until `condition` holds, for at most a minute.
    func sync(until what: String, _ condition: () throws -> Bool) throws {
        var asked = Date.distantPast
        _ = try waitUntil(what, seconds: 60, interval: .milliseconds(200)) { () throws -> Bool? in
            if try condition() { return true }
            if Date().timeIntervalSince(asked) > 4 {
                _ = try HTTPTestClient.request(port: port, method: "POST", path: "/api/sync")
                asked = Date()
            }
            return nil
        }
    }

    /// Radicale's address book as one text, read with curl (Radicale answers GET on a collection with every card).
    func radicaleBook() throws -> String {
        let answer = try radicale.request("GET", radicale.addressBookURL())
        guard answer.status == 200 else { throw TestServerFailure("GET the book: \(answer.status) \(answer.body)") }
        return answer.body
    }

    /// A request to the box with curl: `credential` is a header (`Authorization: Bearer ...`, `Cookie: ...`).
    func curl(
        _ path: String, _ credential: String?, method: String = "GET", headers: [String] = [], body: String? = nil,
        contentType: String? = nil
    ) throws -> CurlResponse {
        try curlRequest(
            method, page + path, body: body, contentType: contentType,
            headers: (credential.map { [$0] } ?? []) + headers,
            user: nil, includeHeaders: true)
    }
}

/// A JSON object from a text, or the test's failure.
func jsonObject(_ text: String, _ comment: @autoclosure () -> String = "") throws -> [String: Any] {
    try #require(
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
}

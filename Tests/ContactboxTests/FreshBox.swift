import Foundation
import TestSupport
import Testing

/// A box as a household unpacks it: the daemon on a fresh store with no address book, its page on 127.0.0.1, and
/// an administrator's file that leaves the interval to the household. Stopped (SIGTERM) when it goes away.
final class FreshBox {
    let work: Workspace
    let port: UInt16
    let daemon: ChildProcess

    init() throws {
        work = try Workspace()
        try FileManager.default.createDirectory(atPath: work.path + "/store", withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let config = try work.file(
            "contactbox.toml",
            "store = \"\(work.db)\"\n[panel]\nboard = \"simulated\"\n[status]\nlisten = \"127.0.0.1:\(port)\"\n")
        daemon = try RunCommandTests().start(config, log: work.path + "/daemon.log")
    }

    deinit {
        _ = RunCommandTests().stop(daemon)
    }

    var page: String { "http://127.0.0.1:\(port)/" }

    /// Pairs the browser with the one-time code of `contactbox pair`, as a box without a button is.
    func pair(_ phone: WebDriverSession) throws {
        let code = try #require(
            try contactbox(["pair", "--db", work.db]).stdout.split(separator: "\n").first?.split(separator: " ").last)
        try phone.sendKeys(String(code), to: "#pair-code")
        try phone.click("#code-form button[type=submit]")
        try phone.waitForAttribute("data-pairing", of: "#pairing", toBe: "paired")
    }
}

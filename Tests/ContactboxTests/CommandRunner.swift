import Foundation
import TestSupport
import Testing

/// Runs the built `contactbox` binary, as a person or a script would.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The binary sits next to the test bundle in the build folder.
let contactboxBinary: String = {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("contactbox").path
}()

func contactbox(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    let outcome = try ChildProcess.run(contactboxBinary, arguments, environment: environment)
    return CommandResult(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
}

/// A fresh folder for one test, removed afterwards.
final class Workspace {
    private let folder: TemporaryDirectory
    var path: String { folder.path }

    init() throws {
        folder = try TemporaryDirectory(prefix: "contactbox-cli")
    }

    var db: String { path + "/store/contacts.sqlite" }

    func file(_ name: String, _ text: String) throws -> String {
        let target = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path + "/" + name, encoding: .utf8)
    }

    /// `contactbox.toml` with the store in this folder and one CardDAV remote, its password in a file of mode 600;
    /// `more` is added to the remote (`ca_file = ...`), `blocks` after it (other remotes). Returns its path.
    func carddavConfig(
        name: String, url: String, username: String, password: String, more: String = "", blocks: String = ""
    ) throws -> String {
        let passwordFile = try file(name + ".password", password + "\n")
        chmod(passwordFile, 0o600)
        return try file(
            "contactbox.toml",
            """
            store = "\(db)"

            [[remote]]
            name = "\(name)"
            kind = "carddav"
            url = "\(url)"
            username = "\(username)"
            password_file = "\(passwordFile)"
            \(more)
            \(blocks)

            """)
    }

    /// The daemon's settings for a test: no scheduled pass within the test, the simulated panel, the status page on
    /// loopback at `port`.
    static func daemonSettings(port: UInt16) -> String {
        """
        [sync]
        interval = "1h"
        [panel]
        board = "simulated"
        [status]
        listen = "127.0.0.1:\(port)"
        """
    }

}

func card(_ uid: String, _ name: String, _ extra: String...) -> String {
    (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)"] + extra + ["END:VCARD"])
        .joined(separator: "\r\n") + "\r\n"
}

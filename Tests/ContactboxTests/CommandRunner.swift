import Foundation
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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: contactboxBinary)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    // Output goes to files, not pipes: a large export cannot fill a pipe and block the child.
    let outPath = NSTemporaryDirectory() + "contactbox-out-" + UUID().uuidString
    let errPath = outPath + ".err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// A fresh folder for one test, removed afterwards.
final class Workspace {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "contactbox-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
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

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func card(_ uid: String, _ name: String, _ extra: String...) -> String {
    (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)"] + extra + ["END:VCARD"])
        .joined(separator: "\r\n") + "\r\n"
}

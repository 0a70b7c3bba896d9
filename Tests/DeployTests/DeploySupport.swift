import Glibc
import TestSupport

/// What a command printed (standard output and error together, in order) and how it ended.
struct CommandOutput {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    var output: String
}

struct DeployTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// The full path of `name` on PATH, or nil: tests of optional tools are skipped without them.
func findTool(_ name: String) -> String? {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    for folder in path.split(separator: ":") {
        let candidate = folder + "/" + name
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}

/// Runs `path` with `arguments` in `directory` (through `env -C`), standard input from /dev/null, and waits for it.
func runCommand(_ path: String, _ arguments: [String], in directory: String = repositoryRoot) throws -> CommandOutput {
    let scratch = try TemporaryDirectory()
    let logPath = scratch.file("output")
    let process = try ChildProcess(
        path: "/usr/bin/env", arguments: ["-C", directory, path] + arguments, logPath: logPath)
    let status = process.waitForExit()
    return CommandOutput(status: status, output: readFile(logPath) ?? "")
}

/// The whole file as text, or nil when it cannot be read.
func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to `path` (replacing it) and sets its mode.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) throws {
    guard let file = fopen(path, "wb") else {
        throw DeployTestFailure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    let bytes = Array(text.utf8)
    let written = fwrite(bytes, 1, bytes.count, file)
    fclose(file)
    guard written == bytes.count, chmod(path, mode) == 0 else {
        throw DeployTestFailure(description: "cannot write \(path)")
    }
}

/// The permission bits of `path`, or nil when it does not exist.
func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

func exists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The unit file's settings: `Key=value` lines (comments skipped) per `[Section]`, in order.
struct UnitFile {
    var entries: [(section: String, key: String, value: String)] = []
    /// Commented-out lines, without the leading `#`, for documented options such as LoadCredential=.
    var commentedSettings: [String] = []

    init(text: String) {
        var section = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingSpaces()
            if line.isEmpty { continue }
            if line.hasPrefix("#") || line.hasPrefix(";") {
                commentedSettings.append(String(line.dropFirst()).trimmingSpaces())
            } else if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                entries.append(
                    (
                        section, String(line[..<equals]).trimmingSpaces(),
                        String(line[line.index(after: equals)...]).trimmingSpaces()
                    ))
            }
        }
    }

    /// Every value of `key` in `section`, in order.
    func values(_ key: String, in section: String = "Service") -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    /// The last value of `key` (systemd's rule for single-valued settings).
    func value(_ key: String, in section: String = "Service") -> String? {
        values(key, in: section).last
    }

    /// The words of every value of a list setting (After=, RestrictAddressFamilies= ...).
    func words(_ key: String, in section: String = "Service") -> Set<String> {
        Set(values(key, in: section).flatMap { $0.split(separator: " ").map(String.init) })
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A memory cgroup with a hard limit, for running a test's child process as the systemd unit's memory settings would,
/// made the way `Deploy/lib/memcap.sh` makes one for the benchmarks: through `systemd-run --scope -p MemoryMax=`
/// where systemd is PID 1; else a child of this process's own group, in cgroup v2 (`memory.max`, where the memory
/// controller is delegated to it) or in cgroup v1 (`memory.limit_in_bytes`). `MemoryCgroup.unavailable` says why none can
/// be made (not root, no writable hierarchy), for the tests to skip saying so.
public final class MemoryCgroup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    enum Kind {
        case v1(parent: String)
        case v2(parent: String)
        case systemd
    }

    /// The group's folder (empty for a systemd scope, which systemd makes and removes itself).
    public let path: String
    /// What to put in front of a command so it runs inside the group, with its own PID (`exec`).
    public let commandPrefix: [String]
    let kind: Kind

    /// Makes a group named `name` (with this process's PID, so parallel tests never share one) limited to `bytes`.
    public init(name: String, limitBytes bytes: Int) throws {
        guard let kind = Self.detected.kind else { throw Failure(description: Self.detected.why) }
        self.kind = kind
        let unique = "contactbox-test-\(getpid())-\(name)"
        switch kind {
        case .systemd:
            path = ""
            commandPrefix = [
                "systemd-run", "--scope", "--quiet", "--unit=\(unique)", "-p", "MemoryMax=\(bytes)",
                "-p", "MemorySwapMax=0", "--",
            ]
            return
        case .v1(let parent), .v2(let parent):
            path = parent + "/" + unique
        }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw Failure(description: "cannot make the memory cgroup \(path): \(String(cString: strerror(errno)))")
        }
        switch kind {
        case .v1:
            try Self.write("\(bytes)", to: path + "/memory.limit_in_bytes")
            // Swap counts too where the kernel accounts it (memsw must stay >= the memory limit: set after it).
            if access(path + "/memory.memsw.limit_in_bytes", W_OK) == 0 {
                try Self.write("\(bytes)", to: path + "/memory.memsw.limit_in_bytes")
            }
        case .v2:
            try Self.write("\(bytes)", to: path + "/memory.max")
            try? Self.write("0", to: path + "/memory.swap.max")
        case .systemd:
            break
        }
        commandPrefix = ["/bin/sh", "-c", #"echo $$ >"$0/cgroup.procs" && exec "$@""#, path]
    }

    deinit {
        if !path.isEmpty { rmdir(path) }
    }

    /// Processes the kernel killed in the group for lack of memory (nil for a systemd scope: see the exit status).
    public var oomKills: Int? {
        let file: String
        switch kind {
        case .v1: file = path + "/memory.oom_control"
        case .v2: file = path + "/memory.events"
        case .systemd: return nil
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == "oom_kill" { return Int(fields[1]) }
        }
        return 0
    }

    /// The group's peak usage in bytes, page cache included (nil where the kernel does not keep it).
    public var peakBytes: Int? {
        let file: String
        switch kind {
        case .v1: file = path + "/memory.max_usage_in_bytes"
        case .v2: file = path + "/memory.peak"
        case .systemd: return nil
        }
        return (try? String(contentsOfFile: file, encoding: .utf8)).flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Why no group can be made here, or nil when one can.
    public static var unavailable: String? { detected.kind == nil ? detected.why : nil }

    static let detected: (kind: Kind?, why: String) = {
        let own = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        var v1Path: String?
        var v2Path: String?
        for line in own.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" { v2Path = String(fields[2]) }
            if fields[1].split(separator: ",").contains("memory") { v1Path = String(fields[2]) }
        }
        func trimmed(_ path: String) -> String { path == "/" ? "" : path }
        let initName = (try? String(contentsOfFile: "/proc/1/comm", encoding: .utf8)) ?? ""
        if initName.hasPrefix("systemd"), getuid() == 0, access("/usr/bin/systemd-run", X_OK) == 0 {
            return (.systemd, "")
        }
        if let v2Path {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let parent = root + trimmed(v2Path)
                let controllers =
                    (try? String(contentsOfFile: parent + "/cgroup.subtree_control", encoding: .utf8)) ?? ""
                if access(root + "/cgroup.controllers", F_OK) == 0, access(parent, W_OK) == 0,
                    controllers.split(whereSeparator: \.isWhitespace).contains("memory")
                {
                    return (.v2(parent: parent), "")
                }
            }
        }
        if let v1Path, access("/sys/fs/cgroup/memory" + trimmed(v1Path), W_OK) == 0 {
            return (.v1(parent: "/sys/fs/cgroup/memory" + trimmed(v1Path)), "")
        }
        return (
            nil,
            "no memory cgroup can be made here: no writable cgroup v2 group with the memory controller, no writable "
                + "cgroup v1 memory group, and no systemd (as PID 1, run as root) for systemd-run --scope"
        )
    }()

    private static func write(_ text: String, to file: String) throws {
        let descriptor = open(file, O_WRONLY)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(file): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = text.withCString { Glibc.write(descriptor, $0, strlen($0)) }
        guard written == text.utf8.count else {
            throw Failure(description: "cannot write \(text) to \(file): \(String(cString: strerror(errno)))")
        }
    }
}

@available(*, unavailable) extension MemoryCgroup: Sendable {}

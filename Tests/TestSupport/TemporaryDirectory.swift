import Glibc

/// A fresh directory under /tmp for one test, removed with everything in it when the test lets go of it.
public final class TemporaryDirectory {
    public struct CreationFailed: Error {
        public var errno: Int32
    }

    public let path: String

    /// `/tmp/PREFIX-XXXXXX`, made with mkdtemp(3): mode 700, a name no other process has.
    public init(prefix: String = "contactbox-test") throws {
        path = try Self.make(prefix: prefix)
    }

    /// A fresh folder that nothing removes: for what lives as long as the test process (see `TestCertificates`).
    public static func make(prefix: String) throws(CreationFailed) -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw CreationFailed(errno: errno) }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Creates `name` (and the folders above it) inside this directory and returns its path.
    public func folder(_ name: String) throws -> String {
        var current = path
        for component in name.split(separator: "/") {
            current += "/" + component
            guard mkdir(current, 0o755) == 0 || errno == EEXIST else { throw CreationFailed(errno: errno) }
        }
        return current
    }

    deinit {
        Self.removeTree(path)
    }

    /// Removes `path` and everything below it; symbolic links are removed, never followed.
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(path)
            return
        }
        for name in directoryEntries(path) { removeTree(path + "/" + name) }
        rmdir(path)
    }
}

/// The names in a directory, without `.` and `..`, sorted; empty when it cannot be read.
public func directoryEntries(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

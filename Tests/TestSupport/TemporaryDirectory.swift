import Glibc

/// A fresh directory under /tmp for one test, removed with everything in it when the test lets go of it.
public final class TemporaryDirectory {
    public struct CreationFailed: Error {
        public var errno: Int32
    }

    public let path: String

    public init() throws {
        var template = Array("/tmp/contactbox-test-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw CreationFailed(errno: errno)
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func file(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        // The test databases leave only plain files (the database, its -wal and -shm), so one level is enough.
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." {
                    unlink(file(name))
                }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}

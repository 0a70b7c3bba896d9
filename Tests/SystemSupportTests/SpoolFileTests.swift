import Glibc
import Testing

@testable import SystemSupport

@Suite("Spool files")
struct SpoolFileTests {
    @Test("bytes appended read back through the mapping and by offset, and the file has no name")
    func roundTrip() throws {
        let folder = "/tmp/spool-test-\(getpid())"
        mkdir(folder, 0o700)
        defer { rmdir(folder) }
        let spool = try SpoolFile(directory: folder)
        let pieces = (0..<5).map { index in [UInt8](repeating: UInt8(index + 65), count: 70_000) }
        for piece in pieces { try spool.append(piece) }
        #expect(spool.count == 350_000)
        #expect(spool.readAll() == pieces.flatMap { $0 })
        var middle = [UInt8](repeating: 0, count: 10)
        let read = middle.withUnsafeMutableBytes { spool.read(at: 139_995, into: $0) }
        #expect(read == 10)
        #expect(middle == Array(repeating: 66, count: 5) + Array(repeating: 67, count: 5))
        // Unlinked from the start: the folder is empty (and rmdir above succeeds).
        let directory = try #require(opendir(folder))
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        #expect(names.isEmpty)
    }

    @Test("a folder that cannot take a spool file falls back to /var/tmp")
    func fallback() throws {
        let spool = try SpoolFile(directory: "/nonexistent-\(getpid())")
        try spool.append(Array("abc".utf8))
        #expect(spool.readAll() == Array("abc".utf8))
    }
}

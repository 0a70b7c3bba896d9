import Foundation
import Glibc
import SQLite
import TestSupport
import Testing
import VCard

@testable import ContactStore

@Suite("Safety copies of the store, a damaged page, and recovering from a copy")
struct CopiesTests {
    func people(_ range: Range<Int>, _ name: String = "Person") throws -> [Card] {
        try range.map { try makeCard(uid: "u\($0)", name: "\(name) \($0)", email: "p\($0)@example.org") }
    }

    @Test("a copy is made when the store changed since the newest, never otherwise; two generations are kept")
    func generations() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contacts.sqlite")
        let store = try ContactStore(path: path)
        _ = try store.importChunk(try people(0..<60))
        guard case .made(let first) = try store.makeCopy() else {
            Issue.record("no first copy")
            return
        }
        #expect(first.path == directory.file("copies/newest.sqlite"))
        #expect(first.bytes > 0)
        #expect(try store.makeCopy() == .unchanged)

        try store.upsert(try makeCard(uid: "u1", name: "Renamed"), reason: "test")
        // A stop between two steps keeps nothing, and the copies as they were.
        #expect(try store.makeCopy(pagesPerStep: 1, shouldStop: { true }) == .stopped)
        #expect(access(directory.file("copies/partial.sqlite"), F_OK) != 0)
        #expect(ContactStore.copies(of: path).map(\.path) == [first.path])

        guard case .made = try store.makeCopy() else {
            Issue.record("no second copy")
            return
        }
        let copies = ContactStore.copies(of: path)
        #expect(copies.map(\.path) == [first.path, directory.file("copies/older.sqlite")])
        // Each a whole store of its time, checked, in rollback mode: reading it makes no -wal or -shm beside it.
        let newest = try ContactStore(readingOnly: copies[0].path)
        #expect(try newest.contact(uid: "u1")?.displayName == "Renamed")
        #expect(try newest.count() == 60)
        #expect(try newest.check() == [])
        #expect(try ContactStore(readingOnly: copies[1].path).contact(uid: "u1")?.displayName == "Person 1")
        #expect(access(copies[0].path + "-wal", F_OK) != 0 && access(copies[0].path + "-shm", F_OK) != 0)
    }

    /// Overwrites the first page of `table`'s tree in the closed store at `path` with garbage, as a failing card
    /// returns a torn page.
    func damage(_ path: String, table: String) throws {
        let (root, pageSize) = try {
            let raw = try Database(path: path)
            defer { _ = raw }
            return (
                try raw.scalarInt64("SELECT rootpage FROM sqlite_master WHERE name = ?", table) ?? 0,
                try raw.scalarInt64("PRAGMA page_size") ?? 4096
            )
        }()
        #expect(root > 1)
        let descriptor = open(path, O_WRONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let garbage = [UInt8](repeating: 0xA5, count: Int(pageSize))
        #expect(pwrite(descriptor, garbage, garbage.count, off_t((root - 1) * pageSize)) == garbage.count)
    }

    @Test("a damaged page is found by the quick check, no copy is made of it, and recover puts the newest back")
    func damageAndRecover() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contacts.sqlite")
        do {
            let store = try ContactStore(path: path)
            _ = try store.importChunk(try people(0..<80))
            #expect(try store.quickCheck() == [])
            guard case .made = try store.makeCopy() else {
                Issue.record("no copy")
                return
            }
            // Changed after the copy: what a remote would bring back.
            try store.upsert(try makeCard(uid: "u2", name: "After the copy"), reason: "test")
        }
        try damage(path, table: "contacts")

        let damaged = try ContactStore(path: path)
        let problems = try damaged.quickCheck()
        #expect(!problems.isEmpty)
        #expect(throws: ContactStoreError.self) { try damaged.makeCopy() }
        do {
            _ = try damaged.makeCopy()
        } catch let error as ContactStoreError {
            #expect(error.code == .damaged)
            #expect(error.message.contains("so the store is"))
        }
        // The good copy is still the newest, and no partial one is left.
        let copies = ContactStore.copies(of: path)
        #expect(copies.count == 1)
        #expect(access(directory.file("copies/partial.sqlite"), F_OK) != 0)

        // Not while the store is open somewhere: the daemon holds the folder's lock.
        let daemon = try #require(StoreLock(storePath: path, exclusive: false))
        #expect(StoreLock(storePath: path, exclusive: true) == nil)
        _ = daemon
    }

    @Test("recover moves the damaged files aside, never deleting them, and the copy's store is whole")
    func recover() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contacts.sqlite")
        do {
            let store = try ContactStore(path: path)
            _ = try store.importChunk(try people(0..<80))
            _ = try store.makeCopy()
        }
        try damage(path, table: "contacts")
        let lock = try #require(StoreLock(storePath: path, exclusive: true))
        let copy = try #require(ContactStore.copies(of: path).first)
        let aside = try ContactStore.recover(path, from: copy, at: 1_800_000_000_000)
        _ = lock
        #expect(aside == path + ".damaged-1800000000")
        #expect(access(aside, F_OK) == 0)
        #expect(!(try Database(readingOnly: aside).quickCheck().isEmpty))
        let recovered = try ContactStore(path: path)
        #expect(try recovered.quickCheck() == [])
        #expect(try recovered.check() == [])
        #expect(try recovered.count() == 80)
        #expect(try recovered.contactLines(after: nil, search: "person 7").count == 11)
        // The copy stays a copy.
        #expect(ContactStore.copies(of: path) == [copy])
    }

    @Test("the copy a recover takes is the newest that passes the check now: one the card damaged since is skipped")
    func newestGoodCopy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contacts.sqlite")
        #expect(ContactStore.newestGoodCopy(of: path) == nil)
        let store = try ContactStore(path: path)
        _ = try store.importChunk(try people(0..<80))
        _ = try store.makeCopy()
        try store.upsert(try makeCard(uid: "u1", name: "Renamed"), reason: "test")
        _ = try store.makeCopy()
        let copies = ContactStore.copies(of: path)
        #expect(copies.count == 2)
        #expect(ContactStore.newestGoodCopy(of: path) == copies.first)
        #expect(ContactStore.problems(atPath: path) == [])
        try damage(copies[0].path, table: "contacts")
        #expect(!ContactStore.problems(atPath: copies[0].path).isEmpty)
        #expect(ContactStore.newestGoodCopy(of: path) == copies[1])
        try damage(copies[1].path, table: "contacts")
        #expect(ContactStore.newestGoodCopy(of: path) == nil)
        #expect(ContactStore.problems(atPath: directory.file("missing.sqlite")).count == 1)
    }

    @Test("a torn write-ahead log after a power cut costs its last commits, never the store's soundness")
    func tornLog() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contacts.sqlite")
        let store = try ContactStore(path: path)
        _ = try store.importChunk(try people(0..<50))
        var info = stat()
        #expect(stat(path + "-wal", &info) == 0)
        let firstCommitEnds = Int(info.st_size)
        #expect(firstCommitEnds > 0)
        _ = try store.importChunk(try people(50..<80))
        // The files as a power cut leaves them (no -shm: the next open rebuilds the log's index, checking each
        // frame), with a page of the second commit's frames torn.
        let cut = directory.file("cut")
        #expect(mkdir(cut, 0o700) == 0)
        for suffix in ["", "-wal"] {
            let bytes = try #require(FileManager.default.contents(atPath: path + suffix))
            #expect(FileManager.default.createFile(atPath: cut + "/contacts.sqlite" + suffix, contents: bytes))
        }
        let descriptor = open(cut + "/contacts.sqlite-wal", O_WRONLY)
        #expect(descriptor >= 0)
        let garbage = [UInt8](repeating: 0x3C, count: 4096)
        #expect(pwrite(descriptor, garbage, garbage.count, off_t(firstCommitEnds + 200)) == garbage.count)
        close(descriptor)

        let after = try ContactStore(path: cut + "/contacts.sqlite")
        #expect(try after.quickCheck() == [])
        #expect(try after.check() == [])
        #expect(try after.count() == 50)
        #expect(try after.contact(uid: "u60") == nil)
        withExtendedLifetime(store) {}
    }
}

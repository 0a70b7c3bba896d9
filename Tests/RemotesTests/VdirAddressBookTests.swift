import Remotes
import Sync
import TestSupport
import Testing
import VCard

#if canImport(Glibc)
    import Glibc
#endif

struct VdirFixtureError: Error, CustomStringConvertible {
    var description: String
}

/// A card parsed from text, as a remote would give it.
func makeVdirCard(uid: String, name: String, version: String = "3.0", note: String? = nil) throws -> Card {
    var lines = ["BEGIN:VCARD", "VERSION:\(version)", "UID:\(uid)", "FN:\(name)"]
    if let note { lines.append("NOTE:\(note)") }
    lines.append("END:VCARD")
    var reader = CardReader(text: lines.joined(separator: "\r\n") + "\r\n")
    guard case .success(let parsed) = reader.next() else {
        throw VdirFixtureError(description: "fixture card does not parse")
    }
    return parsed.card
}

/// Writes a file as another program would (not atomically).
func writeVdirFile(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "w") else { throw VdirFixtureError(description: "cannot write \(path)") }
    fputs(text, file)
    fclose(file)
}

func readVdirFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while case let byte = getc(file), byte != EOF { bytes.append(UInt8(byte)) }
    return String(decoding: bytes, as: UTF8.self)
}

extension VdirAddressBook {
    /// The whole listing, for small test folders.
    func listing() throws -> [String: String] {
        var entries: [String: String] = [:]
        let feed = try changes(since: nil, changed: { entries[$0.href] = $0.etag }, removed: { _ in Issue.record() })
        #expect(feed.isFullListing)
        #expect(feed.newToken == nil)
        return entries
    }

    func fetchAll(_ hrefs: [String]) throws -> [Result<RemoteCard, RemoteError>] {
        var results: [Result<RemoteCard, RemoteError>] = []
        try fetch(hrefs) { results.append($0) }
        return results
    }
}

@Suite("A vdir folder as an address book")
struct VdirAddressBookTests {
    let directory: TemporaryDirectory
    let book: VdirAddressBook

    init() throws {
        directory = try TemporaryDirectory()
        book = try VdirAddressBook(name: "usb", folder: directory.path, createIfMissing: false)
    }

    @Test("created cards are listed, fetched, updated and deleted")
    func roundTrip() throws {
        #expect(try book.listing().isEmpty)
        let ada = try book.create(makeVdirCard(uid: "ada-1", name: "Ada Lovelace"))
        let odd = try book.create(makeVdirCard(uid: "odd/uid 2", name: "Odd Name"))
        #expect(ada.href == "ada-1.vcf")
        #expect(odd.href == Card.fileName(forUID: "odd/uid 2"))
        #expect(try book.listing() == [ada.href: ada.etag, odd.href: odd.etag])

        let fetched = try book.fetchAll([ada.href, odd.href]).map { try $0.get() }
        #expect(fetched.map(\.href) == [ada.href, odd.href])
        #expect(fetched.map(\.etag) == [ada.etag, odd.etag])
        #expect(fetched.map(\.card.uid) == ["ada-1", "odd/uid 2"])
        #expect(fetched.map(\.card.displayName) == ["Ada Lovelace", "Odd Name"])

        let newEtag = try book.update(
            href: ada.href, etag: ada.etag, with: makeVdirCard(uid: "ada-1", name: "Ada King"))
        #expect(newEtag != ada.etag)
        #expect(try book.listing()[ada.href] == newEtag)
        let updated = try #require(try book.fetchAll([ada.href]).first).get()
        #expect(updated.card.displayName == "Ada King")
        #expect(updated.etag == newEtag)

        try book.delete(href: odd.href, etag: odd.etag)
        #expect(try book.listing() == [ada.href: newEtag])
        try book.delete(href: odd.href, etag: odd.etag)  // already gone: fine
        #expect(try book.fetchAll([odd.href]).isEmpty)
    }

    @Test("the ETag changes when a file is rewritten, even with the same bytes, and not otherwise")
    func etags() throws {
        let card = try makeVdirCard(uid: "u1", name: "Same")
        let entry = try book.create(card)
        #expect(try book.listing()[entry.href] == entry.etag)
        #expect(try book.listing()[entry.href] == entry.etag)
        #expect(try book.fetchAll([entry.href]).first?.get().etag == entry.etag)

        let rewritten = try book.update(href: entry.href, etag: entry.etag, with: card)
        #expect(rewritten != entry.etag)
        #expect(readVdirFile(directory.file(entry.href)) == card.serialized())

        // Another program rewriting in place (same inode, same size): the mtime in ns tells.
        usleep(20_000)  // file times tick with the kernel clock (a jiffy, up to 10 ms), not every ns
        try writeVdirFile(directory.file(entry.href), card.serialized())
        #expect(try book.listing()[entry.href] != rewritten)
    }

    @Test("a stale ETag fails an update or a delete and leaves the file alone")
    func staleEtags() throws {
        let entry = try book.create(makeVdirCard(uid: "u1", name: "First"))
        let current = try book.update(href: entry.href, etag: entry.etag, with: makeVdirCard(uid: "u1", name: "Second"))
        let contents = readVdirFile(directory.file(entry.href))

        let update = try #require(throws: RemoteError.self) {
            try book.update(href: entry.href, etag: entry.etag, with: makeVdirCard(uid: "u1", name: "Lost"))
        }
        #expect(update.kind == .preconditionFailed)
        let delete = try #require(throws: RemoteError.self) { try book.delete(href: entry.href, etag: entry.etag) }
        #expect(delete.kind == .preconditionFailed)
        #expect(readVdirFile(directory.file(entry.href)) == contents)
        #expect(try book.listing() == [entry.href: current])

        try book.delete(href: entry.href, etag: current)
        let gone = try #require(throws: RemoteError.self) {
            try book.update(href: entry.href, etag: current, with: makeVdirCard(uid: "u1", name: "Back"))
        }
        #expect(gone.kind == .preconditionFailed)
        #expect(try book.listing().isEmpty)
    }

    @Test("creating over an existing file fails and leaves it unchanged, with no temporary file behind")
    func createNeverOverwrites() throws {
        try writeVdirFile(
            directory.file("u1.vcf"), "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:u1\r\nFN:Theirs\r\nEND:VCARD\r\n")
        let before = try book.listing()
        let error = try #require(throws: RemoteError.self) { try book.create(makeVdirCard(uid: "u1", name: "Ours")) }
        #expect(error.kind == .preconditionFailed)
        #expect(readVdirFile(directory.file("u1.vcf"))?.contains("FN:Theirs") == true)
        #expect(try book.listing() == before)
        #expect(try allNames() == ["u1.vcf"])
    }

    @Test(
        "a file that does not read is carried opaque, a blank or several-card file is rejected alone; deleted files are left out"
    )
    func brokenFiles() throws {
        let good = try book.create(makeVdirCard(uid: "good", name: "Good"))
        try writeVdirFile(directory.file("cut.vcf"), "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:cut\r\nFN:Cut\r\n")
        try writeVdirFile(directory.file("empty.vcf"), "")
        try writeVdirFile(
            directory.file("two.vcf"),
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a\r\nFN:A\r\nEND:VCARD\r\n"
                + "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:b\r\nFN:B\r\nEND:VCARD\r\n")
        let hrefs = ["cut.vcf", good.href, "empty.vcf", "deleted.vcf", "two.vcf", "../escape.vcf"]
        let results = try book.fetchAll(hrefs)
        #expect(results.count == 5)

        func failure(_ index: Int) -> RemoteError? {
            guard case .failure(let error) = results[index] else { return nil }
            return error
        }
        let cut = try results[0].get()
        #expect(cut.card.isOpaque && cut.uid == "cut")
        #expect(cut.card.serialized() == "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:cut\r\nFN:Cut\r\n")
        #expect(cut.unreadable?.contains("no END:VCARD") == true)
        #expect(try results[1].get().card.uid == "good")
        #expect(failure(2)?.message.contains("empty.vcf:1: the file holds no vCard") == true)
        #expect(failure(3)?.message.contains("two.vcf:6: a second card starts here") == true)
        #expect(failure(4)?.kind == .rejected(status: 0))
    }

    @Test("a file with a 2 MB photo is a contact, written back byte for byte; one over 16 MiB is refused by its size")
    func largeFiles() throws {
        let photo = String(repeating: "/9j/4AAQSkZJRgABAQ", count: 2 << 20 / 18)
        let big = try makeVdirCard(uid: "big", name: "Big")
        var card = big
        card.properties.append(Property(name: "PHOTO", parameters: [Parameter("ENCODING", ["b"])], value: photo))
        let written = try book.create(card)
        let read = try #require(try book.fetchAll([written.href]).first).get()
        #expect(read.card.first("PHOTO")?.large != nil, "read spooled")
        #expect(read.card.first("PHOTO")?.value == photo)
        #expect(read.hash == card.contentHash)
        let huge = String(repeating: "AAAA", count: (CardReader.Limits.maxCardBytes + (1 << 20)) / 4)
        try writeVdirFile(
            directory.file("huge.vcf"),
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:huge\r\nFN:Huge\r\nPHOTO;ENCODING=b:\(huge)\r\nEND:VCARD\r\n")
        guard case .failure(let error) = try #require(try book.fetchAll(["huge.vcf"]).first) else {
            Issue.record("a card over the limit is refused")
            return
        }
        #expect(error.message.contains("huge.vcf") && error.message.contains("card is larger than 16 MiB"))
    }

    @Test("a card without UID gets the same UID on every fetch")
    func stableUIDs() throws {
        try writeVdirFile(directory.file("nouid.vcf"), "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:No UID\r\nEND:VCARD\r\n")
        let first = try #require(try book.fetchAll(["nouid.vcf"]).first).get().card.uid
        let second = try #require(try book.fetchAll(["nouid.vcf"]).first).get().card.uid
        #expect(first != nil)
        #expect(first == second)
    }

    @Test("temporary leftovers, dotfiles, other files and folders are not items")
    func strangersIgnored() throws {
        let entry = try book.create(makeVdirCard(uid: "real", name: "Real"))
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nFN:X\r\nEND:VCARD\r\n"
        for name in [".real.vcf.tmp-4242", "x.vcf.tmp", ".hidden.vcf", "notes.txt", "x.VCF.bak"] {
            try writeVdirFile(directory.file(name), card)
        }
        #expect(mkdir(directory.file("folder.vcf"), 0o755) == 0)
        #expect(symlink(directory.file(entry.href), directory.file("link.vcf")) == 0)
        defer { rmdir(directory.file("folder.vcf")) }
        #expect(try book.listing() == [entry.href: entry.etag])
    }

    @Test("a missing folder is not found, not empty, unless it may be created")
    func missingFolder() throws {
        let path = directory.file("book")
        let missing = try #require(throws: RemoteError.self) {
            try VdirAddressBook(name: "usb", folder: path, createIfMissing: false)
        }
        #expect(missing.kind == .notFound)
        #expect(missing.message.contains("does not exist"))

        let created = try VdirAddressBook(name: "usb", folder: path + "/", createIfMissing: true)
        #expect(created.folder == path)
        #expect(try created.listing().isEmpty)

        // The stick is pulled out after the book was opened.
        rmdir(path)
        let pulled = try #require(throws: RemoteError.self) {
            try created.changes(since: nil, changed: { _ in }, removed: { _ in })
        }
        #expect(pulled.kind == .notFound)
    }

    @Test("cards are written as vCard 3.0 unless the book is told otherwise")
    func writeVersion() throws {
        #expect(book.writeVersion == "3.0")
        let entry = try book.create(makeVdirCard(uid: "v4", name: "Four", version: "4.0"))
        #expect(readVdirFile(directory.file(entry.href))?.contains("VERSION:3.0\r\n") == true)

        let modern = try VdirAddressBook(
            name: "nas", folder: directory.path, createIfMissing: false, writeVersion: "4.0")
        let other = try modern.create(makeVdirCard(uid: "v4b", name: "Four", version: "4.0"))
        #expect(readVdirFile(directory.file(other.href))?.contains("VERSION:4.0\r\n") == true)
    }

    @Test("a folder of 5,000 files is listed in full, one entry at a time")
    func largeFolder() throws {
        for index in 0..<5_000 {
            try writeVdirFile(
                directory.file("c\(index).vcf"), "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:c\(index)\r\nFN:C\r\nEND:VCARD\r\n")
        }
        var count = 0
        var hrefs = Set<String>()
        _ = try book.changes(
            since: "ignored-token",
            changed: { entry in
                count += 1
                hrefs.insert(entry.href)
            }, removed: { _ in Issue.record() })
        #expect(count == 5_000)
        #expect(hrefs.count == 5_000)
        let sample = try book.fetchAll((0..<20).map { "c\($0 * 250).vcf" })
        #expect(try sample.map { try $0.get().card.uid } == (0..<20).map { "c\($0 * 250)" })
    }

    private func allNames() throws -> [String] {
        guard let handle = opendir(directory.path) else { throw VdirFixtureError(description: "opendir") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

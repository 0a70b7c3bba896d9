import ContactStore
import Glibc
import StatusServer
import Testing

@testable import StoreContacts

@Suite("Contacts for the page after the store's file was replaced (a recover from a safety copy)")
struct ReplacedStoreTests {
    @Test("both connections see the file put in the store's place, and a write goes to it, not to the one set aside")
    func reopenedOnTheNewFile() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada])
        guard case .made(let copy) = try fixture.store.makeCopy() else {
            Issue.record("no copy")
            return
        }
        try fixture.importCards([Cards.grace, Cards.bob])
        // Both connections open, on the store as it is: three contacts.
        #expect(try fixture.backend.list(search: nil, after: nil, limit: 10).contacts.count == 3)
        _ = try fixture.backend.write(
            .put(
                uid: "before", vcard: Array(Cards.plain(uid: "before", name: "Written before").utf8), ifMatch: nil,
                by: "the page"))
        #expect(try fixture.backend.list(search: nil, after: nil, limit: 10).contacts.count == 4)

        // What the daemon's recover does, while the page's connections (and the fixture's) stay open.
        let aside = try ContactStore.recover(fixture.path, from: copy, at: 1_800_000_000_000)
        let names = try fixture.backend.list(search: nil, after: nil, limit: 10).contacts.map(\.name)
        #expect(names == ["Ada Lovelace"])

        _ = try fixture.backend.write(
            .put(
                uid: "after", vcard: Array(Cards.plain(uid: "after", name: "Written after").utf8), ifMatch: nil,
                by: "the page"))
        #expect(try fixture.backend.list(search: nil, after: nil, limit: 10).contacts.count == 2)
        let store = try ContactStore(readingOnly: fixture.path)
        #expect(try store.contact(uid: "after")?.displayName == "Written after")
        #expect(try store.contact(uid: "before") == nil)
        #expect(try store.quickCheck() == [])
        let kept = try ContactStore(readingOnly: aside)
        #expect(try kept.contact(uid: "after") == nil)
        #expect(try kept.contact(uid: "before")?.displayName == "Written before")
    }

    @Test("a connection is kept while the store's file is the same one: no reopening on every request")
    func keptWhileTheSame() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada])
        let first = try fixture.backend.reader()
        #expect(try fixture.backend.reader() === first)
        let writer = try fixture.backend.writer()
        #expect(try fixture.backend.writer() === writer)
        // Gone between two renames: the writer does not make a new, empty store in its place.
        #expect(rename(fixture.path, fixture.path + ".moved") == 0)
        #expect(throws: ContactsError.self) { try fixture.backend.writer() }
        #expect(access(fixture.path, F_OK) != 0)
        #expect(rename(fixture.path + ".moved", fixture.path) == 0)
        #expect(try fixture.backend.writer() !== writer)
    }
}

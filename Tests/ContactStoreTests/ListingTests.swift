import ContactStore
import Testing

@Suite("Paging, searching and change feeds")
struct ListingTests {
    /// Pages through every live contact with `search`, checking each page's size.
    func allPages(_ store: ContactStore, search: String? = nil, limit: Int = 100) throws -> [[StoredContact]] {
        var pages: [[StoredContact]] = []
        var cursor: ContactCursor?
        while true {
            let page = try store.contacts(after: cursor, limit: limit, search: search)
            guard let last = page.last else {
                break
            }
            #expect(page.count <= limit)
            pages.append(page)
            cursor = last.cursor
        }
        return pages
    }

    @Test("keyset paging returns every live contact exactly once, in name order, across pages of 100")
    func pagingVisitsEveryRowOnce() throws {
        let fixture = try StoreFixture()
        // Ten names, many equal and some equal only ignoring case, so the id tie-breaker matters.
        let names = ["ann", "Ann", "bob", "BOB", "Carla", "dave", "Eve", "eve", "Zoë", "ANN"]
        let uids = try fixture.importContacts(250) { names[$0 % names.count] }
        try fixture.store.delete(uid: uids[7], reason: "deleted")

        let pages = try allPages(fixture.store)
        #expect(pages.map(\.count) == [100, 100, 49])
        let listed = pages.flatMap { $0 }
        #expect(listed.count == 249)
        #expect(Set(listed.map(\.uid)) == Set(uids).subtracting([uids[7]]))
        #expect(listed.allSatisfy { !$0.deleted })
        // Ordered by lowercased name (ASCII NOCASE), then by id.
        for (previous, next) in zip(listed, listed.dropFirst()) {
            let a = previous.displayName.lowercased()
            let b = next.displayName.lowercased()
            #expect(a < b || (a == b && previous.id < next.id))
        }
    }

    @Test("search matches a case-insensitive substring and takes % and _ literally")
    func searchIsLiteral() throws {
        let fixture = try StoreFixture()
        let names = ["50% Off Club", "5000 Offices", "a_b", "axb", "A_B Upper", "back\\\\slash", "plain"]
        _ = try fixture.importContacts(names.count) { names[$0] }
        func search(_ text: String, limit: Int = 100) throws -> [String] {
            try allPages(fixture.store, search: text, limit: limit).flatMap { $0 }.map(\.displayName)
        }
        #expect(try search("%") == ["50% Off Club"])
        #expect(try search("0%") == ["50% Off Club"])
        #expect(try search("_") == ["a_b", "A_B Upper"])
        #expect(try search("A_b", limit: 1) == ["a_b", "A_B Upper"])
        #expect(try search("off") == ["50% Off Club", "5000 Offices"])
        #expect(try search("\\") == ["back\\slash"])
        #expect(try search("nothing") == [])
        #expect(try search("").count == names.count)
    }

    @Test("changes since a sequence number come in change order, tombstones included, page by page")
    func changeFeed() throws {
        let fixture = try StoreFixture()
        let uids = try fixture.importContacts(150) { "P\($0)" }
        try fixture.store.delete(uid: uids[0], reason: "deleted")
        try fixture.store.upsert(try makeCard(uid: uids[1], name: "Renamed"), reason: "updated")

        var seen: [StoredContact] = []
        var since: Int64 = 0
        while case let page = try fixture.store.changes(since: since), let last = page.last {
            seen += page
            since = last.changeSeq
        }
        #expect(seen.count == 150)
        #expect(Set(seen.map(\.uid)).count == 150)
        #expect(seen.map(\.changeSeq) == seen.map(\.changeSeq).sorted())
        #expect(seen.suffix(2).map(\.uid) == [uids[0], uids[1]])
        #expect(seen.suffix(2).first?.deleted == true)

        let recent = try fixture.store.changes(since: seen[147].changeSeq)
        #expect(recent.map(\.uid) == [uids[0], uids[1]])
    }

    @Test("a limit outside 1...100 is refused")
    func limits() throws {
        let fixture = try StoreFixture()
        for limit in [0, 101] {
            let error = try #require(throws: ContactStoreError.self) {
                try fixture.store.contacts(after: nil, limit: limit)
            }
            #expect(error.code == .invalidArgument)
            #expect(throws: ContactStoreError.self) { try fixture.store.changes(since: 0, limit: limit) }
        }
    }
}

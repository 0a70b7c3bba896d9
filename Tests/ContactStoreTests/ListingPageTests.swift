import ContactStore
import Testing

@Suite("A sync run's listing, paged by the sizes it gave")
struct ListingPageTests {
    /// Every page of the listing's changed entries, as `SyncSession` asks for them.
    func pages(_ store: ContactStore, limit: Int = ContactStore.chunkLimit) throws -> [[String]] {
        var pages: [[String]] = []
        var after: String?
        while true {
            let page = try store.listing(removed: false, after: after, limit: limit, bytes: ContactStore.chunkBytes)
            guard let last = page.last else { return pages }
            pages.append(page.map(\.href))
            after = last.href
        }
    }

    func listing(_ sizes: [Int?]) throws -> StoreFixture {
        let fixture = try StoreFixture()
        try fixture.store.beginListing()
        let entries = sizes.enumerated().map { index, size in
            ContactStore.ListedEntry(href: "/book/\(1000 + index).vcf", etag: "\"\(index)\"", size: size)
        }
        var start = 0
        while start < entries.count {
            let chunk = Array(entries[start..<min(start + ContactStore.chunkLimit, entries.count)])
            try fixture.store.addToListing(chunk, remoteID: 1)
            start += chunk.count
        }
        return fixture
    }

    @Test("Pages of known sizes add up to at most chunkBytes, and a card larger than that is a page of its own")
    func boundedByBytes() throws {
        let kib = 1024
        // 2 MB photos among small cards: each photo alone, the small ones together up to the budget.
        let sizes: [Int?] = [2 * kib, 2_000_000, 100 * kib, 100 * kib, 100 * kib, 3 * kib, 2_000_000, 2_000_000]
        let fixture = try listing(sizes)
        #expect(try fixture.store.listingCountWithoutSize() == 0)
        let pages = try pages(fixture.store).map { $0.map { (Int($0.dropFirst(6).prefix(4)) ?? 0) - 1000 } }
        #expect(pages == [[0], [1], [2, 3], [4, 5], [6], [7]])
        for page in pages where page.count > 1 {
            #expect(page.compactMap { sizes[$0] }.reduce(0, +) <= ContactStore.chunkBytes)
        }
        try fixture.store.endListing()
    }

    @Test("Small cards of known size fill a page of 100; unknown sizes count against the limit only")
    func limitAndUnknownSizes() throws {
        let fixture = try listing(Array(repeating: 500, count: 150) + [nil, nil, nil])
        #expect(try fixture.store.listingCountWithoutSize() == 3)
        #expect(try pages(fixture.store).map(\.count) == [100, 53])
        #expect(try pages(fixture.store, limit: 10).map(\.count) == Array(repeating: 10, count: 15) + [3])
        try fixture.store.endListing()
    }

    @Test("A later entry for the same href keeps the size when the listing repeats it without one")
    func sizeKeptOnRepeat() throws {
        let fixture = try listing([4096])
        try fixture.store.addToListing([ContactStore.ListedEntry(href: "/book/1000.vcf", etag: "\"0\"")], remoteID: 1)
        #expect(try fixture.store.listing(removed: false, after: nil).first?.size == 4096)
        try fixture.store.endListing()
    }
}

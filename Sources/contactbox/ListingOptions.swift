import ArgumentParser
import ContactStore

/// `--limit N` and `--json`, for the commands that list the newest rows first (`history`, `runs`).
struct ListingOptions: ParsableArguments {
    @Option(help: "How many to show, newest first.")
    var limit = 20

    @Flag(help: "One JSON object per line instead of text.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    /// Up to `limit` rows, newest first, read a page of at most 100 at a time: `page` gets the id to read below
    /// (nil: from the newest) and the page size.
    func forEach<Row>(
        _ page: (_ before: Int64?, _ size: Int) throws -> [Row], id: (Row) -> Int64, _ body: (Row) throws -> Void
    ) throws {
        var before: Int64?
        var left = limit
        while left > 0 {
            let size = min(left, ContactStore.chunkLimit)
            let rows = try page(before, size)
            for row in rows { try body(row) }
            left -= rows.count
            guard rows.count == size, let last = rows.last else { return }
            before = id(last)
        }
    }
}

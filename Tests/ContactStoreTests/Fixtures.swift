import ContactStore
import SQLite
import SystemSupport
import TestSupport
import Testing
import VCard

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// A card parsed from text, as the importer would get it. With `uid: nil` the card has no UID at all (the reader
/// would add one, so it is removed after parsing: a card built in code can lack one).
func makeCard(
    uid: String?, name: String, email: String? = nil, note: String? = nil, extraLines: [String] = []
) throws -> Card {
    var lines = ["BEGIN:VCARD", "VERSION:4.0"]
    if let uid {
        lines.append("UID:\(uid)")
    }
    lines.append("FN:\(name)")
    if let email {
        lines.append("EMAIL;TYPE=home:\(email)")
    }
    if let note {
        lines.append("NOTE:\(note)")
    }
    lines += extraLines
    lines.append("END:VCARD")
    var reader = CardReader(text: lines.joined(separator: "\r\n") + "\r\n")
    switch reader.next() {
    case .success(let parsed):
        var card = parsed.card
        if uid == nil {
            card.properties.removeAll { $0.isNamed("UID") }
        }
        return card
    case .failure(let error):
        throw FixtureError(description: "fixture card does not parse: \(error)")
    case nil:
        throw FixtureError(description: "fixture card is empty")
    }
}

/// A clock that moves one millisecond per reading, so every timestamp is distinct and predictable; with the
/// status the store asks for (`ClockStatus`): set from the network or not, in which boot.
final class TestClock {
    private(set) var millis: Int64 = 1_700_000_000_000
    var synchronized = true
    var boot = "boot-1"
    /// The wall clock's reading of the boot's start: moves only when the clock is set (`set(by:)`).
    private(set) var bootStart: Int64 = 1_699_999_000_000

    func now() -> Int64 {
        millis += 1
        return millis
    }

    /// Moves the clock on, as days passing.
    func advance(by milliseconds: Int64) {
        millis += milliseconds
    }

    /// Sets the clock: the wall clock jumps by `milliseconds`, as NTP (or fake-hwclock) makes it.
    func set(by milliseconds: Int64) {
        millis += milliseconds
        bootStart += milliseconds
    }

    func status() -> ClockStatus {
        ClockStatus(synchronized: synchronized, bootStart: bootStart, boot: boot)
    }
}

/// A fresh store in its own temporary directory, plus ways to reopen it and to reach its file behind its back.
struct StoreFixture {
    let directory: TemporaryDirectory
    let clock = TestClock()
    let store: ContactStore

    var path: String { directory.file("contacts.sqlite") }

    init() throws {
        directory = try TemporaryDirectory()
        let clock = self.clock
        store = try ContactStore(
            path: directory.file("contacts.sqlite"), now: { clock.now() }, clock: { clock.status() })
    }

    func reopen() throws -> ContactStore {
        let clock = self.clock
        return try ContactStore(path: path, now: { clock.now() }, clock: { clock.status() })
    }

    /// A second connection to the same file, to inspect or tamper with the raw rows.
    func rawDatabase() throws -> Database {
        try Database(path: path)
    }

    /// The history of `uid` without its `created` rows: the versions it had (schema 4 notes creations too).
    func replacedVersions(uid: String) throws -> [HistoryEntry] {
        try store.history(uid: uid).filter { $0.kind != .created }
    }

    /// Imports `count` distinct contacts, in chunks of at most 100, named by `name(index)`.
    @discardableResult
    func importContacts(_ count: Int, name: (Int) -> String) throws -> [String] {
        var uids: [String] = []
        var start = 0
        while start < count {
            let end = min(start + ContactStore.chunkLimit, count)
            let cards = try (start..<end).map { index in
                try makeCard(uid: "uid-\(index)", name: name(index), email: "person\(index)@example.org")
            }
            for outcome in try store.importChunk(cards) {
                guard case .inserted(let uid) = outcome else {
                    throw FixtureError(description: "expected an insert, got \(outcome)")
                }
                uids.append(uid)
            }
            start = end
        }
        return uids
    }
}

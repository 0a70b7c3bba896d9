import ContactStore
import Logging
import Sync
import TestSupport
import VCard

func cardText(_ uid: String, _ name: String, note: String? = nil, rev: String? = nil) -> String {
    var lines = ["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"]
    if let note { lines.append("NOTE:\(note)") }
    if let rev { lines.append("REV:\(rev)") }
    return (lines + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
}

func makeCard(_ uid: String, _ name: String, note: String? = nil, rev: String? = nil) throws -> Card {
    var reader = CardReader(text: cardText(uid, name, note: note, rev: rev))
    guard case .success(let parsed) = reader.next() else { throw FixtureError.unparsable }
    return parsed.card
}

enum FixtureError: Error { case unparsable }

/// A store in a fresh temporary folder, and an engine over it.
final class SyncFixture {
    let directory: TemporaryDirectory
    let store: ContactStore
    let engine: SyncEngine

    init() throws {
        directory = try TemporaryDirectory()
        store = try ContactStore(path: directory.file("contacts.sqlite"))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        engine = SyncEngine(store: store, logger: logger)
    }

    @discardableResult
    func sync(_ book: AddressBook, _ options: SyncOptions = SyncOptions()) throws -> SyncReport {
        try engine.sync(book, remote: store.row(for: book), options: options)
    }

    /// Live contacts as uid → content hash.
    func localContents() throws -> [String: String] {
        var result: [String: String] = [:]
        try store.forEachContact { result[$0.uid] = $0.hash }
        return result
    }
}

extension FakeAddressBook {
    /// Remote cards as uid → content hash.
    var contents: [String: String] {
        Dictionary(cards.values.compactMap { card in card.uid.map { ($0, card.contentHash) } }) { first, _ in first }
    }
}

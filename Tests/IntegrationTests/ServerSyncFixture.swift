import CardDAV
import ContactStore
import Foundation
import HTTP
import Logging
import Remotes
import Sync
import TestSupport
import VCard

/// A real CardDAV server of one kind (Radicale, Xandikos or Cyrus), a fresh store, and the sync engine between them.
/// The address book is found by discovery from the server's root, as a user would configure it.
final class ServerSyncFixture {
    let kind: TestServerKind
    let server: any CardDAVTestServer
    let directory: TemporaryDirectory
    let store: ContactStore
    let engine: SyncEngine
    let http: HTTPClient
    let info: AddressBookInfo
    let book: CardDAVAddressBook
    /// The remote's name in the store (history reasons say "deleted on NAME").
    var remoteName: String { kind.rawValue }

    init(_ kind: TestServerKind, retry: RetryPolicy = .immediate(attempts: 2)) throws {
        self.kind = kind
        server = try kind.start()
        directory = try TemporaryDirectory()
        (store, engine, http, info, book) = try Self.box(
            server: server, name: kind.rawValue, path: directory.file("contacts.sqlite"), retry: retry)
    }

    /// Another box with a store of its own, syncing the same address book.
    func secondBox() throws -> (store: ContactStore, engine: SyncEngine, book: CardDAVAddressBook, http: HTTPClient) {
        let (store, engine, http, _, book) = try Self.box(
            server: server, name: kind.rawValue, path: directory.file("second.sqlite"), retry: .immediate(attempts: 2))
        return (store, engine, book, http)
    }

    private static func box(server: any CardDAVTestServer, name: String, path: String, retry: RetryPolicy) throws -> (
        ContactStore, SyncEngine, HTTPClient, AddressBookInfo, CardDAVAddressBook
    ) {
        let store = try ContactStore(path: path)
        var logger = Logger(label: "integration")
        logger.logLevel = .warning  // the sync summary lines would drown the test report
        let engine = SyncEngine(store: store, logger: logger)
        var configuration = HTTPConfiguration(userAgent: "ContactBox-tests")
        configuration.credentials = Credentials(username: server.username, password: server.password)
        let http = try HTTPClient(configuration, logger: logger)
        let client = CardDAVClient(http: http, logger: logger)
        let books = try client.discover(server.baseURL)
        guard let info = books.first(where: { DAVURL.sameResource($0.url, server.addressBookURL) }) else {
            throw FixtureFailure(
                "\(server.name): discovery from \(server.baseURL) found \(books.map(\.url)), not \(server.addressBookURL)"
            )
        }
        let book = CardDAVAddressBook(name: name, book: info, client: client, retry: retry)
        return (store, engine, http, info, book)
    }

    @discardableResult
    func sync(_ options: SyncOptions = SyncOptions()) throws -> SyncReport {
        try engine.sync(book, remote: store.row(for: book, url: server.addressBookURL), options: options)
    }

    /// The requests the client made so far.
    var requestCount: Int { http.requestCounts.values.reduce(0, +) }

    /// The version the server is read in, straight over HTTP: Cyrus serves 3.0 unless asked, and its 3.6 conversion
    /// to 3.0 destroys 4.0 photos, so it is asked for 4.0, what it advertises as richest.
    var readVersion: String? { kind == .cyrus ? "4.0" : nil }

    /// What the server holds, read with curl (not through the code under test): uid → card.
    func serverCards() throws -> [String: Card] {
        var result: [String: Card] = [:]
        for item in try server.items(version: readVersion) {
            var reader = CardReader(text: item.vcard)
            if case .success(let parsed) = reader.next(), let uid = parsed.card.uid { result[uid] = parsed.card }
        }
        return result
    }

    func putOnServer(_ text: String, as fileName: String) throws {
        try server.put(text, as: fileName)
    }

    func deleteOnServer(_ fileName: String) throws {
        try server.delete(fileName)
    }

    /// Live local contacts: uid → content hash.
    func localContents() throws -> [String: String] {
        try Self.contents(of: store)
    }

    static func contents(of store: ContactStore) throws -> [String: String] {
        var result: [String: String] = [:]
        try store.forEachContact { result[$0.uid] = $0.hash }
        return result
    }

    func serverContents() throws -> [String: String] {
        try serverCards().mapValues(\.contentHash)
    }
}

/// A vCard 4.0 card's text.
func vcard4(_ uid: String, _ name: String, _ extra: String...) -> String {
    (["BEGIN:VCARD", "VERSION:4.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"] + extra + ["END:VCARD"])
        .joined(separator: "\r\n") + "\r\n"
}

func parsedCard(_ text: String) throws -> Card {
    var reader = CardReader(text: text)
    guard let parsed = try reader.next()?.get() else { throw FixtureFailure("no card in \(text)") }
    return parsed.card
}

/// Small real images, base64: a 1×1 JPEG and a 1×1 PNG.
enum TestPhotos {
    static let jpeg =
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q=="
    static let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

    /// Card `index` of a generated book: even ones 3.0, odd ones 4.0, every fifth with a photo in its version's form
    /// (with `photosIn40` false, odd ones with a photo are 3.0 too).
    static func card(_ prefix: String, _ index: Int, photosIn40: Bool = true) -> String {
        let uid = "\(prefix)-\(index)"
        let name = "\(prefix.capitalized) Person \(index)"
        var extra = ["TEL;TYPE=CELL:+49 170 555\(String(format: "%04d", index))", "EMAIL:p\(index)@\(prefix).example"]
        if index.isMultiple(of: 2) || (!photosIn40 && index.isMultiple(of: 5)) {
            if index.isMultiple(of: 5) { extra.append("PHOTO;ENCODING=b;TYPE=JPEG:\(jpeg)") }
            return
                (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"] + extra + ["END:VCARD"])
                .joined(separator: "\r\n") + "\r\n"
        }
        if index.isMultiple(of: 5) { extra.append("PHOTO:data:image/png;base64,\(png)") }
        return (["BEGIN:VCARD", "VERSION:4.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"] + extra + ["END:VCARD"])
            .joined(separator: "\r\n") + "\r\n"
    }
}

import CardDAV
import ContactStore
import Foundation
import HTTP
import Logging
import Remotes
import Sync
import TestSupport
import VCard

/// A real Radicale, a fresh store, and the sync engine between them.
final class RadicaleSyncFixture {
    let server: RadicaleServer
    let directory: TemporaryDirectory
    let store: ContactStore
    let engine: SyncEngine
    let http: HTTPClient
    let book: CardDAVAddressBook

    init(retry: RetryPolicy = .immediate(attempts: 2)) throws {
        let server = try RadicaleServer()
        try server.createAddressBook()
        self.server = server
        directory = try TemporaryDirectory()
        store = try ContactStore(path: directory.file("contacts.sqlite"))
        var logger = Logger(label: "integration")
        logger.logLevel = .warning  // the sync summary lines would drown the test report
        engine = SyncEngine(store: store, logger: logger)
        var configuration = HTTPConfiguration(userAgent: "ContactBox-tests")
        configuration.credentials = Credentials(username: RadicaleServer.username, password: RadicaleServer.password)
        http = try HTTPClient(configuration, logger: logger)
        let client = CardDAVClient(http: http, logger: logger)
        let bookURL = server.addressBookURL()
        let info = try client.discover(server.baseURL).first { DAVURL.sameResource($0.url, bookURL) }
        guard let info else { throw FixtureFailure("discovery did not find the book") }
        book = CardDAVAddressBook(name: "radicale", book: info, client: client, retry: retry)
    }

    @discardableResult
    func sync(_ options: SyncOptions = SyncOptions(), book: AddressBook? = nil) throws -> SyncReport {
        let book = book ?? self.book
        return try engine.sync(book, remote: store.row(for: book, url: server.addressBookURL()), options: options)
    }

    /// What the server holds, read straight over HTTP (not through the code under test): uid → card.
    func serverCards() throws -> [String: Card] {
        var result: [String: Card] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: server.collectionFolder())
        where file.hasSuffix(".vcf") {
            let (status, body) = try server.request("GET", server.addressBookURL() + file)
            guard status == 200 else { continue }
            var reader = CardReader(text: body)
            if case .success(let parsed) = reader.next(), let uid = parsed.card.uid { result[uid] = parsed.card }
        }
        return result
    }

    /// Puts a card on the server as another client would.
    func putOnServer(_ text: String, as fileName: String) throws {
        let (status, _) = try server.request(
            "PUT", server.addressBookURL() + fileName, body: text, contentType: "text/vcard")
        guard (200..<300).contains(status) else { throw FixtureFailure("PUT \(fileName): \(status)") }
    }

    func deleteOnServer(_ fileName: String) throws {
        let (status, _) = try server.request("DELETE", server.addressBookURL() + fileName)
        guard (200..<300).contains(status) else { throw FixtureFailure("DELETE \(fileName): \(status)") }
    }

    /// Live local contacts: uid → content hash.
    func localContents() throws -> [String: String] {
        var result: [String: String] = [:]
        try store.forEachContact { result[$0.uid] = $0.hash }
        return result
    }

    func serverContents() throws -> [String: String] {
        try serverCards().mapValues(\.contentHash)
    }
}

func vcard(_ uid: String, _ name: String, _ extra: String...) -> String {
    (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"] + extra + ["END:VCARD"])
        .joined(separator: "\r\n") + "\r\n"
}

func card(_ uid: String, _ name: String, _ extra: String...) throws -> Card {
    let text = (["BEGIN:VCARD", "VERSION:3.0", "UID:\(uid)", "FN:\(name)", "N:\(name);;;;"] + extra + ["END:VCARD"])
        .joined(separator: "\r\n")
    var reader = CardReader(text: text)
    guard let parsed = try reader.next()?.get() else { throw FixtureFailure("no card") }
    return parsed.card
}

struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

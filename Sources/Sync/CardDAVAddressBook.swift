import CardDAV
import HTTP
import Logging
import VCard

/// A CardDAV address book (RFC 6352) as an `AddressBook`: changes by `sync-collection` (RFC 6578) where the server
/// supports it, else by a streamed PROPFIND listing; fetches by `addressbook-multiget`; writes guarded by ETags.
///
/// Hrefs are handed out percent-decoded, so that an item we created and the same item listed by the server (which
/// may encode `@` or `+`) are one href in the saved state; requests encode them again.
public final class CardDAVAddressBook: AddressBook {
    public let name: String
    public let bookURL: String
    public let writeVersion: String
    let client: CardDAVClient
    let supportsSyncCollection: Bool
    let retry: RetryPolicy

    public init(
        name: String, book: AddressBookInfo, client: CardDAVClient, retry: RetryPolicy = RetryPolicy()
    ) {
        self.name = name
        self.bookURL = book.url
        self.client = client
        self.supportsSyncCollection = book.supportsSyncCollection
        self.writeVersion = book.supportedVersions.contains("4.0") ? "4.0" : "3.0"
        self.retry = retry
    }

    public func changes(
        since token: String?, changed: (RemoteEntry) throws -> Void, removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        if supportsSyncCollection {
            do {
                let result = try attempt {
                    try client.syncCollection(bookURL: bookURL, token: token) { change in
                        switch change {
                        case .changed(let href, let etag): try changed(RemoteEntry(href: canonical(href), etag: etag))
                        case .removed(let href): try removed(canonical(href))
                        }
                    }
                }
                // An empty token asks for every member (RFC 6578 3.8): that is a full listing.
                return ChangeFeed(newToken: result.token, isFullListing: token == nil || token == "")
            } catch let error as RemoteError where error.kind == .invalidSyncToken {
                // > the server MUST return ... DAV:valid-sync-token ... the client SHOULD ... full sync (RFC 6578 3.2)
                let result = try attempt {
                    try client.syncCollection(bookURL: bookURL, token: nil) { change in
                        if case .changed(let href, let etag) = change {
                            try changed(RemoteEntry(href: canonical(href), etag: etag))
                        }
                    }
                }
                return ChangeFeed(newToken: result.token, isFullListing: true)
            }
        }
        try attempt {
            try client.list(bookURL: bookURL) { href, etag in
                try changed(RemoteEntry(href: canonical(href), etag: etag))
            }
        }
        return ChangeFeed(newToken: nil, isFullListing: true)
    }

    public func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws {
        guard !hrefs.isEmpty else { return }
        var items: [MultigetItem] = []
        try attempt {
            items.removeAll()
            try client.multiget(bookURL: bookURL, hrefs: hrefs.map(encoded)) { items.append($0) }
        }
        for item in items {
            let href = canonical(item.href)
            switch item.outcome {
            case .missing:
                continue
            case .failed(let error):
                try body(.failure(RemoteError(.rejected(status: error.status ?? 0), error.message)))
            case .card(let text):
                try body(RemoteCard.parse(text, href: href, etag: item.etag ?? "", remote: name))
            }
        }
    }

    public func hrefForNew(_ card: Card) -> String {
        canonical(CardDAVClient.itemURL(bookURL: bookURL, uid: card.uid ?? ""))
    }

    public func create(_ card: Card) throws -> RemoteEntry {
        let uid = card.uid ?? Card.makeUID()
        let url = CardDAVClient.itemURL(bookURL: bookURL, uid: uid)
        let result = try attempt {
            try client.put(url: url, vcard: card.serialized(), ifMatch: nil, ifNoneMatchAny: true)
        }
        return RemoteEntry(href: canonical(url), etag: try etag(result, url: url))
    }

    public func update(href: String, etag: String, with card: Card) throws -> String {
        let url = DAVURL.resolve(encoded(href), against: bookURL)
        let result = try attempt {
            try client.put(
                url: url, vcard: card.serialized(), ifMatch: etag.isEmpty ? nil : etag, ifNoneMatchAny: false)
        }
        return try self.etag(result, url: url)
    }

    public func delete(href: String, etag: String) throws {
        let url = DAVURL.resolve(encoded(href), against: bookURL)
        do {
            try attempt { try client.delete(url: url, ifMatch: etag.isEmpty ? nil : etag) }
        } catch let error as RemoteError where error.kind == .notFound {
            return  // already gone: what we wanted
        }
    }

    /// Independent writes go out together, at most the configured concurrency at a time (the HTTP client's
    /// `maxConcurrent`). A write that hits a busy server is retried alone.
    public func perform(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>] {
        let requests = writes.map { write -> CardDAVClient.Write in
            switch write {
            case .create(let card):
                let url = CardDAVClient.itemURL(bookURL: bookURL, uid: card.uid ?? Card.makeUID())
                return .put(url: url, vcard: card.serialized(), ifMatch: nil, ifNoneMatchAny: true)
            case .update(let href, let etag, let card):
                let url = DAVURL.resolve(encoded(href), against: bookURL)
                return .put(
                    url: url, vcard: card.serialized(), ifMatch: etag.isEmpty ? nil : etag, ifNoneMatchAny: false)
            case .delete(let href, let etag):
                return .delete(url: DAVURL.resolve(encoded(href), against: bookURL), ifMatch: etag.isEmpty ? nil : etag)
            }
        }
        let outcomes: [Result<PutResult, CardDAVError>]
        do {
            outcomes = try client.perform(requests)
        } catch {
            return writes.map { _ in .failure(RemoteError(.unavailable(retryAfter: nil), "\(name): \(error)")) }
        }
        return zip(writes, zip(requests, outcomes)).map { write, pair in
            let (request, outcome) = pair
            switch (outcome, request) {
            case (.success(let result), .put(let url, _, _, _)):
                return Result { RemoteEntry(href: canonical(url), etag: try etag(result, url: url)) }
                    .mapError { $0 as? RemoteError ?? RemoteError(.malformed, "\($0)") }
            case (.success, .delete):
                return .success(nil)
            case (.failure(let error), .delete) where error.kind == .notFound:
                return .success(nil)  // already gone
            case (.failure(let error), _):
                let remoteError = RemoteError(error)
                guard case .unavailable = remoteError.kind else { return .failure(remoteError) }
                // Busy or briefly away: this one write again, with backoff, on its own.
                return Result { try performOne(write) }
                    .mapError { $0 as? RemoteError ?? RemoteError(.malformed, "\($0)") }
            }
        }
    }

    /// SabreDAV-based servers may answer a PUT without an ETag (SERVER-QUIRKS.md): ask for it, or leave it empty
    /// so that the next run fetches the item and compares content.
    private func etag(_ result: PutResult, url: String) throws -> String {
        if let etag = result.etag { return etag }
        return (try? attempt { try client.get(url: url).etag }) ?? ""
    }

    /// Runs a request with retries, turning CardDAV errors into the sync engine's.
    private func attempt<T>(_ body: () throws -> T) throws -> T {
        try retry.run {
            do {
                return try body()
            } catch let error as CardDAVError {
                throw RemoteError(error)
            }
        }
    }

    private func canonical(_ href: String) -> String {
        DAVURL.percentDecodedPath(DAVURL.path(of: DAVURL.resolve(href, against: bookURL)))
    }

    private func encoded(_ href: String) -> String {
        DAVURL.encodedPath(href)
    }
}

extension RemoteError {
    public init(_ error: CardDAVError) {
        switch error.kind {
        case .preconditionFailed: self.init(.preconditionFailed, error.message)
        case .rejected(let status): self.init(.rejected(status: status), error.message)
        case .unauthorized: self.init(.unauthorized, error.message)
        case .rateLimited(let retryAfter): self.init(.unavailable(retryAfter: retryAfter), error.message)
        case .serverError: self.init(.unavailable(retryAfter: nil), error.message)
        case .notFound: self.init(.notFound, error.message)
        case .invalidSyncToken: self.init(.invalidSyncToken, error.message)
        case .malformedResponse: self.init(.malformed, error.message)
        case .network: self.init(.unavailable(retryAfter: nil), error.message)
        }
    }
}

extension RemoteCard {
    /// Reads one fetched card.
    static func parse(_ text: String, href: String, etag: String, remote: String) -> Result<RemoteCard, RemoteError> {
        var reader = CardReader(text: text)
        switch reader.next() {
        case .success(let parsed):
            return .success(RemoteCard(href: href, etag: etag, parsed: parsed))
        case .failure(let error):
            return .failure(RemoteError(.rejected(status: 0), "\(remote): \(href): \(error)"))
        case nil:
            return .failure(RemoteError(.rejected(status: 0), "\(remote): \(href): no card in the item"))
        }
    }
}

import VCard

/// One write to a remote; a batch of them may run concurrently (CardDAV: at most the configured concurrency).
public enum RemoteWrite: Sendable {
    case create(Card)
    case update(href: String, etag: String, card: Card)
    case delete(href: String, etag: String)
}

extension AddressBook {
    public var learnedWriteConcurrency: Int? { nil }

    /// The default runs the writes one after the other.
    public func perform(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>] {
        performOneByOne(writes)
    }

    /// Each write through `performOne`, in order.
    public func performOneByOne(_ writes: [RemoteWrite]) -> [Result<RemoteEntry?, RemoteError>] {
        writes.map { write in
            Result { try performOne(write) }.mapError { $0 as? RemoteError ?? RemoteError(.malformed, "\($0)") }
        }
    }

    /// One write through `create`, `update` or `delete`: the entry written, nil for a delete.
    public func performOne(_ write: RemoteWrite) throws -> RemoteEntry? {
        switch write {
        case .create(let card):
            return try create(card)
        case .update(let href, let etag, let card):
            return RemoteEntry(href: href, etag: try update(href: href, etag: etag, with: card))
        case .delete(let href, let etag):
            try delete(href: href, etag: etag)
            return nil
        }
    }
}

extension RemoteWrite {
    /// Where the write goes on `book`.
    func href(in book: AddressBook) -> String {
        switch self {
        case .create(let card): book.hrefForNew(card)
        case .update(let href, _, _), .delete(let href, _): href
        }
    }
}

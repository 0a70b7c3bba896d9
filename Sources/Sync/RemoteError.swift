/// Why a remote operation failed, in words a person can act on. Never carries a password or a whole card.
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// 412: the item changed (or appeared) since we last saw it. Re-plan that item.
        case preconditionFailed
        /// The remote refused this one item (400, 413, 415, an unparsable card); the rest can go on.
        case rejected(status: Int)
        /// 401/403 on the collection: the run stops and needs a person (wrong password, no permission).
        case unauthorized
        /// The server is busy (429, 503, another 5xx): try again later, after `retryAfter` if given.
        case unavailable(retryAfter: Duration?)
        /// The server or folder cannot be reached (no route, refused, unknown host, TLS failure, a missing stick).
        case unreachable
        /// The server answered too slowly (under the low-speed limit, or past the deadline of one request).
        case tooSlow
        /// The sync token is no longer valid (RFC 6578 `DAV:valid-sync-token`): list everything instead.
        case invalidSyncToken
        /// The remote answered something we cannot understand.
        case malformed
        /// The folder or collection does not exist.
        case notFound
        /// The configured URL is no address book and leads to no one address book (nothing there, a calendar, a
        /// collection with several books): the configuration must change, and the message says to what.
        case notAnAddressBook
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension RemoteError.Kind {
    /// Whether trying again later may work: what the retry policy retries.
    public var isTemporary: Bool {
        switch self {
        case .unavailable, .unreachable, .tooSlow: true
        case .preconditionFailed, .rejected, .unauthorized, .invalidSyncToken, .malformed, .notFound, .notAnAddressBook:
            false
        }
    }
}

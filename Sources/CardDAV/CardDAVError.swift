import HTTP

/// Why a CardDAV request failed. The message names the method, the path and the status; never a body, a card or
/// a credential.
public struct CardDAVError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// 412: the item changed (or exists, for a create) since its ETag was read.
        case preconditionFailed
        /// The server refused this request for its content (400, 409 such as a UID conflict, 413, 415, other 4xx).
        case rejected(status: Int)
        /// 401, or 403 without a quota or sync-token reason: wrong credentials or no permission.
        case unauthorized
        /// 429 or 503 (or Google's quota 403): try again later, after `retryAfter` when the server said.
        case rateLimited(retryAfter: Duration?)
        /// 423: the collection is locked while the server commits another write (Xandikos commits each to git).
        case locked(retryAfter: Duration?)
        /// Any other 5xx, or a status that makes no sense for the request.
        case serverError(status: Int)
        /// 404 or 410.
        case notFound
        /// RFC 6578 3.2 `DAV:valid-sync-token`: the token is unknown or expired; list everything instead.
        case invalidSyncToken
        /// A body that is not the XML or the answer the request calls for.
        case malformedResponse
        /// No answer at all: connection, DNS, TLS, timeout, a body over its size cap.
        case network(HTTPError)
    }

    public var kind: Kind
    public var message: String
    /// The status of the answer behind this error, whatever its kind (a 403 and a 401 are both `.unauthorized`,
    /// a 404 and a 410 both `.notFound`); nil when there was no answer, or the error is about its body.
    public var responseStatus: Int?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The HTTP status behind this error, when there was one.
    public var status: Int? {
        switch kind {
        case .preconditionFailed: 412
        case .locked: 423
        case .rejected(let status), .serverError(let status): status
        case .unauthorized, .rateLimited, .notFound, .invalidSyncToken, .malformedResponse, .network: nil
        }
    }
}

extension CardDAVError.Kind: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.preconditionFailed, .preconditionFailed), (.unauthorized, .unauthorized), (.notFound, .notFound),
            (.invalidSyncToken, .invalidSyncToken), (.malformedResponse, .malformedResponse):
            true
        case (.rejected(let left), .rejected(let right)), (.serverError(let left), .serverError(let right)):
            left == right
        case (.rateLimited(let left), .rateLimited(let right)), (.locked(let left), .locked(let right)):
            left == right
        case (.network(let left), .network(let right)):
            left.message == right.message
        default:
            false
        }
    }
}

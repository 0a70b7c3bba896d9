import CMicroHTTPD

/// Whether a request's body has one length that every reader agrees on. A request whose framing two parsers could
/// read differently (this server and a proxy in front of it, or MHD and the next request on the connection) can
/// hide a second request inside the first: request smuggling. RFC 9112 section 6.1:
/// > A server MAY reject a request that contains both Content-Length and Transfer-Encoding or process such a
/// > request in accordance with the Transfer-Encoding alone. Regardless, the server MUST close the connection
/// > after responding to such a request to avoid the potential attacks.
/// and section 6.3:
/// > If a message is received without Transfer-Encoding and with an invalid Content-Length header field, then the
/// > message framing is invalid and the recipient MUST treat it as an unrecoverable error [...] the server MUST
/// > respond with a 400 (Bad Request) status code and then close the connection.
/// We reject rather than choose: both headers, `Content-Length`s that differ (two headers or a list), a length
/// that is not digits, and a `Transfer-Encoding` other than `chunked` (the one coding MHD reads) are answered
/// with 400 and the connection is closed. Identical repeats (`Content-Length: 5, 5`) are the one tolerated case.
struct RequestFraming: Equatable {
    /// Every `Content-Length` value, each list split into its members, without spaces.
    var lengths: [Substring] = []
    /// Every `Transfer-Encoding` header's value.
    var transferEncodings: [String] = []

    /// Pure over the collected headers, so the rule is tested without a server.
    var isUnambiguous: Bool {
        if !transferEncodings.isEmpty {
            return lengths.isEmpty && transferEncodings.count == 1
                && transferEncodings[0].trimmingSpaces.lowercased() == "chunked"
        }
        guard let first = lengths.first else { return true }
        return !first.isEmpty && first.utf8.count <= 18 && first.allSatisfy { $0.isASCII && $0.isNumber }
            && lengths.allSatisfy { $0 == first }
    }

    /// Adds one header, by its name in any case.
    mutating func add(name: String, value: String) {
        switch name.lowercased() {
        case "content-length":
            lengths += value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        case "transfer-encoding":
            transferEncodings.append(value)
        default:
            break
        }
    }

    /// The framing headers of a request MHD has read the head of. Every header, not only the first of a name as
    /// MHD_lookup_connection_value gives.
    static func of(_ connection: OpaquePointer) -> RequestFraming {
        var framing = RequestFraming()
        withUnsafeMutablePointer(to: &framing) { pointer in
            // > @return number of entries iterated over, -1 if connection is NULL.
            // The count is of no use here: a connection MHD hands us is never NULL, and no entries is no framing.
            _ = MHD_get_connection_values(
                connection, .HEADER_KIND,
                { context, _, key, value in
                    guard let context, let key else { return .YES }
                    let framing = context.assumingMemoryBound(to: RequestFraming.self)
                    framing.pointee.add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
                    return .YES
                }, pointer)
        }
        return framing
    }
}

extension StringProtocol {
    /// Without the spaces and tabs HTTP allows around a value or a list member (RFC 9110 section 5.6.1, OWS).
    fileprivate var trimmingSpaces: Substring {
        let text = Substring(self)
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return start < end ? text[start..<end] : text[start..<start]
    }
}

import CCurl

/// Why a request failed. Never carries credentials or bodies; the URL is shown without its user info.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection could not be made, or broke during the transfer.
        case connect
        /// The host name did not resolve.
        case dns
        /// TLS failed: handshake, certificate verification, CA files.
        case tls
        /// No progress for `transferTimeout` seconds, or the connection or total timeout passed.
        case timeout
        /// The response body is larger than the caller accepts.
        case tooLarge
        /// The transfer was stopped by the caller (its body handler threw).
        case aborted
        /// The server broke HTTP: a malformed reply, no reply, too many redirects.
        case protocolError
        /// A redirect to a place the origin policy keeps credentials and contacts from (`OriginPolicy`).
        case refusedRedirect
        case other
    }

    public var kind: Kind
    public var message: String
    /// The request URL without user info, if the error concerns one request.
    public var url: String?

    public init(_ kind: Kind, _ message: String, url: String? = nil) {
        self.kind = kind
        self.message = message
        self.url = url.map(redactingUserInfo)
    }

    public var description: String {
        if let url {
            return "HTTP error (\(kind)): \(message) [\(url)]"
        }
        return "HTTP error (\(kind)): \(message)"
    }
}

extension HTTPError {
    /// The error for a failed libcurl transfer. `detail` is curl's error buffer, which names hosts and
    /// reasons; `secret` (the password) is scrubbed from it in case a server echoed it somewhere.
    init(code: CURLcode, detail: String, url: String, secret: String?) {
        var message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if let secret, !secret.isEmpty {
            message = message.replacing(secret, with: "<redacted>")
        }
        self.init(HTTPError.kind(of: code), message, url: url)
    }

    static func kind(of code: CURLcode) -> Kind {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_COULDNT_RESOLVE_PROXY:
            return .connect
        case CURLE_COULDNT_RESOLVE_HOST:
            return .dns
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_WRITE_ERROR, CURLE_ABORTED_BY_CALLBACK, CURLE_READ_ERROR:
            return .aborted
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
            CURLE_BAD_CONTENT_ENCODING, CURLE_TOO_MANY_REDIRECTS, CURLE_HTTP3, CURLE_UNSUPPORTED_PROTOCOL:
            return .protocolError
        default:
            return .other
        }
    }
}

/// `scheme://user:password@host/path` becomes `scheme://host/path`; anything else is returned as is.
public func redactingUserInfo(_ url: String) -> String {
    guard let schemeEnd = url.firstRange(of: "://") else { return url }
    let authorityStart = schemeEnd.upperBound
    let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
    guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return url }
    return String(url[..<authorityStart]) + String(url[url.index(after: at)...])
}

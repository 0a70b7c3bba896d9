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
        /// No progress for `transferTimeout`, or the connection or total timeout passed.
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
        let kind = HTTPError.kind(of: code)
        if kind == .tls {
            message = HTTPError.explainTLS(code: code, detail: message, host: URLParts(url)?.host)
        }
        self.init(kind, message, url: url)
    }

    /// What a TLS failure means for the person who set up the remote, and what to do, with curl's own words in
    /// brackets. A certificate that fails verification stops the connection in the handshake: no request, no
    /// credentials and no card went out, and the message says so.
    static func explainTLS(code: CURLcode, detail: String, host: String?) -> String {
        let server = host.map { "the server's certificate (\($0))" } ?? "the server's certificate"
        let nothingSent = "nothing was sent"
        let lowered = detail.lowercasedASCII()
        func has(_ words: String...) -> Bool { words.contains { lowered.contains($0) } }
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION
        where has("does not match target host", "no alternative certificate subject"):
            return "\(server) is not issued for that host name (\(detail)); \(nothingSent). "
                + "Use the host name the certificate names in the remote's url"
        case CURLE_PEER_FAILED_VERIFICATION where has("certificate has expired"):
            return "\(server) has expired (\(detail)); \(nothingSent). "
                + "The server must renew it; if it was renewed, check this box's clock"
        case CURLE_PEER_FAILED_VERIFICATION where has("not yet valid"):
            return "\(server) is not valid yet (\(detail)); \(nothingSent). Check this box's clock"
        case CURLE_PEER_FAILED_VERIFICATION
        where has("local issuer", "issuer certificate", "self-signed", "self signed", "verify the first certificate"):
            return "\(server) is signed by a certificate authority this box does not trust (\(detail)); "
                + "\(nothingSent). If the server uses its own authority, set ca_file to the authority's certificate "
                + "(the server's own, if it is self-signed), or ca_path to a folder of certificates prepared with "
                + "`openssl rehash`"
        case CURLE_PEER_FAILED_VERIFICATION:
            return "\(server) failed verification (\(detail)); \(nothingSent)"
        case CURLE_SSL_CACERT_BADFILE:
            return "the trusted certificate authorities could not be loaded (\(detail)); \(nothingSent). "
                + "Check ca_file and ca_path"
        default:
            return "the TLS connection failed (\(detail))"
        }
    }

    static func kind(of code: CURLcode) -> Kind {
        switch code {
        // > CURLE_PARTIAL_FILE: a file transfer was shorter or larger than expected. A body cut off (the connection
        // closed before its Content-Length, or its last chunk) is a connection that broke, worth another try.
        case CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_COULDNT_RESOLVE_PROXY, CURLE_PARTIAL_FILE:
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
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_GOT_NOTHING,
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

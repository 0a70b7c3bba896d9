import CCurl
import SystemSupport

/// A libcurl easy handle, reused from transfer to transfer and freed when this object goes.
///
/// It is reconfigured for each hop without `curl_easy_reset`, which would also forget the Digest nonce:
/// kept, it lets later requests answer the server's challenge at once instead of costing a 401 each.
/// Every option a hop may change is therefore set on every hop.
final class EasyHandle {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Written by the prerequest callback: whether this hop's connection resumed a TLS session.
    private let tlsNote: UnsafeMutablePointer<ccurl_tls_note>
    /// The header lines of the current hop; curl reads them without copying.
    private var headerList: HeaderList?

    /// `share`: the client's share handle (its TLS session cache).
    init(_ configuration: HTTPConfiguration, share: UnsafeMutableRawPointer) throws(HTTPError) {
        guard let handle = curl_easy_init() else {
            throw HTTPError(.other, "libcurl could not create a transfer handle")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        tlsNote = .allocate(capacity: 1)
        tlsNote.initialize(to: ccurl_tls_note(handle: handle, resumed: -1))

        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_SHARE, pointer: share)
        try check(ccurl_easy_note_tls(handle, tlsNote))
        // Signals are no way to time out a resolver in a multi-threaded process.
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 0)  // we follow redirects ourselves, deciding where credentials go
        try set(CURLOPT_USERAGENT, configuration.userAgent)
        try set(CURLOPT_HTTP_VERSION, ccurl_http_version_2tls)
        // Wait for a connection that may multiplex (HTTP/2) rather than open another one.
        try set(CURLOPT_PIPEWAIT, 1)
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout.wholeMilliseconds))
        // > If the average transfer speed is below LOW_SPEED_LIMIT bytes/second during LOW_SPEED_TIME
        // > seconds, libcurl considers the transfer too slow and aborts.
        // (LOW_SPEED_TIME is set per hop, in `configure`.)
        try set(CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
        // (TIMEOUT_MS is set per hop too: what is left of the turn caps it.)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        // Debian's libcurl loads its whole CA bundle into every connection unless told otherwise (Docs/tls.md).
        try set(CURLOPT_CAINFO, configuration.caFile)
        try set(CURLOPT_CAPATH, configuration.caPath)
        // The upload buffer defaults to 64 KiB per handle; our bodies are small.
        try set(CURLOPT_UPLOAD_BUFFERSIZE, 16 * 1024)

        try check(ccurl_easy_setopt_writefunction(handle, CURLOPT_WRITEFUNCTION, CurlCallbacks.write))
        try check(ccurl_easy_setopt_writefunction(handle, CURLOPT_HEADERFUNCTION, CurlCallbacks.header))
        try check(ccurl_easy_setopt_readfunction(handle, CurlCallbacks.read))
        try check(ccurl_easy_setopt_seekfunction(handle, CurlCallbacks.seek))
    }

    deinit {
        curl_easy_cleanup(handle)
        headerList = nil  // after the handle: curl may touch the list until cleaned up
        errorBuffer.deallocate()
        tlsNote.deallocate()
    }

    /// Sets up one hop: where, how, with which headers and credentials, and whose callbacks.
    func configure(
        method: String, url: String, headers: [String], hasBody: Bool, bodyCount: Int, lowSpeedTime: Duration,
        totalTimeout: Duration, credentials: HopCredentials, context: TransferContext
    ) throws(HTTPError) {
        errorBuffer[0] = 0
        tlsNote.pointee.resumed = -1
        try set(CURLOPT_URL, url)
        try set(CURLOPT_LOW_SPEED_TIME, Int(lowSpeedTime.wholeSecondsRoundingUp))
        // > TIMEOUT_MS: the maximum time in milliseconds that you allow the entire transfer operation to take.
        // (0 means none; a cap is never below a millisecond.)
        try set(CURLOPT_TIMEOUT_MS, totalTimeout == .zero ? 0 : max(1, Int(totalTimeout.wholeMilliseconds)))
        // > HTTPGET: forces the HTTP request to get back to using GET; also turns off UPLOAD and NOBODY.
        try set(CURLOPT_HTTPGET, 1)
        try set(CURLOPT_NOBODY, method == "HEAD" ? 1 : 0)
        // UPLOAD alone would make it a PUT: a GET with a body needs its name spelled out.
        try set(CURLOPT_CUSTOMREQUEST, (method == "GET" && !hasBody) || method == "HEAD" ? nil : method)
        try set(CURLOPT_UPLOAD, hasBody ? 1 : 0)
        try check(ccurl_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, hasBody ? curl_off_t(bodyCount) : -1))

        let list = try HeaderList(headers)
        try check(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list.head))
        headerList = list

        switch credentials {
        case .password(let credentials, let auth):
            try set(CURLOPT_XOAUTH2_BEARER, nil)
            try set(CURLOPT_USERNAME, credentials.username)
            try set(CURLOPT_PASSWORD, credentials.password)
            let schemes =
                switch auth {
                case .basic: ccurl_auth_basic
                case .digest: ccurl_auth_digest
                // > If more than one bit is set, libcurl first queries the site to see which authentication methods
                // > it supports and then picks the best one you allow it to use.
                case .ask: ccurl_auth_basic | ccurl_auth_digest
                }
            try set(CURLOPT_HTTPAUTH, Int(schemes))
        case .bearer(let token):
            // > CURLOPT_XOAUTH2_BEARER: the OAuth 2.0 access token [...] sent in the Authorization header as
            // > "Bearer <token>" when CURLAUTH_BEARER is set in CURLOPT_HTTPAUTH.
            try set(CURLOPT_USERNAME, nil)
            try set(CURLOPT_PASSWORD, nil)
            try set(CURLOPT_XOAUTH2_BEARER, token)
            try set(CURLOPT_HTTPAUTH, Int(ccurl_auth_bearer))
        case .none:
            try set(CURLOPT_USERNAME, nil)
            try set(CURLOPT_PASSWORD, nil)
            try set(CURLOPT_XOAUTH2_BEARER, nil)
            try set(CURLOPT_HTTPAUTH, Int(ccurl_auth_basic))
        }

        let userdata = Unmanaged.passUnretained(context).toOpaque()
        for option in [CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_READDATA, CURLOPT_SEEKDATA] {
            try set(option, pointer: userdata)
        }
    }

    /// What a hop carries.
    enum HopCredentials {
        case none
        case password(Credentials, HopAuth)
        /// An OAuth 2.0 access token (RFC 6750).
        case bearer(String)
    }

    /// How a hop with credentials authenticates.
    enum HopAuth {
        /// Basic, sent with the request.
        case basic
        /// Digest, answering the server's challenge (curl keeps the nonce for the next hops on this handle).
        case digest
        /// No credentials until the server's 401 says what it takes; then the best of Basic and Digest it offers.
        case ask
    }

    /// Forgets the last hop's callbacks and header lines once the handle is out of the multi handle.
    func release() {
        for option in [CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_READDATA, CURLOPT_SEEKDATA] {
            _ = ccurl_easy_setopt_pointer(handle, option, nil)
        }
        _ = ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, nil)
        headerList = nil
    }

    /// Whether the last hop's connection resumed a TLS session (true), made a full handshake (false), or was not
    /// TLS (nil).
    var resumedTLSSession: Bool? {
        tlsNote.pointee.resumed < 0 ? nil : tlsNote.pointee.resumed == 1
    }

    /// curl's error buffer for the last transfer, often more specific than `curl_easy_strerror`.
    var errorDetail: String {
        String(cString: errorBuffer)
    }

    func info(_ info: CURLINFO) -> Int? {
        var value = 0
        guard ccurl_easy_getinfo_long(handle, info, &value) == CURLE_OK else { return nil }
        return value
    }

    func info(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ccurl_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try check(ccurl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String?) throws(HTTPError) {
        try check(ccurl_easy_setopt_string(handle, option, value))
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(HTTPError) {
        try check(ccurl_easy_setopt_pointer(handle, option, pointer))
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else {
            throw HTTPError(.other, "libcurl rejected an option: " + String(cString: curl_easy_strerror(code)))
        }
    }
}

@available(*, unavailable)
extension EasyHandle: Sendable {}

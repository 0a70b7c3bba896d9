import CCurl

/// The parts of an absolute URL that redirect and logging decisions need, parsed by libcurl's own URL parser
/// (so they agree with where curl actually connects).
struct URLParts: Equatable {
    var scheme: String
    var host: String
    var port: Int
    /// The path alone: no query, no fragment, no user info (safe to log).
    var path: String

    init(scheme: String, host: String, port: Int, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    init?(_ url: String) {
        guard let parsed = CurlURL(url) else { return nil }
        guard let scheme = parsed.part(CURLUPART_SCHEME), let host = parsed.part(CURLUPART_HOST),
            let port = parsed.part(CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return nil }
        self.scheme = scheme.lowercasedASCII()
        self.host = host.lowercasedASCII()
        self.port = port
        self.path = parsed.part(CURLUPART_PATH) ?? "/"
    }
}

/// A `CURLU` handle, freed when this object goes.
private final class CurlURL {
    private let handle: OpaquePointer

    init?(_ url: String) {
        guard let handle = curl_url() else { return nil }
        self.handle = handle
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
    }

    func part(_ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, what, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    deinit {
        curl_url_cleanup(handle)
    }
}

@available(*, unavailable)
extension CurlURL: Sendable {}

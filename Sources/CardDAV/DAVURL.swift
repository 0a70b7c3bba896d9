import VCard

/// The little of RFC 3986 that WebDAV needs: resolving the hrefs of a multistatus against the request URL, and
/// making item URLs. Hrefs themselves are never rewritten: they are the items' identities on the server.
public enum DAVURL {
    /// `href` made absolute against `base` (RFC 3986 5.2: an absolute URL stays as is, "//host/p" takes the
    /// base's scheme, "/p" the base's scheme and authority, a relative path is merged with the base's path).
    public static func resolve(_ href: String, against base: String) -> String {
        if hasScheme(href) { return href }
        let (origin, basePath) = split(base)
        if href.hasPrefix("//") {
            let scheme = origin.firstRange(of: "://").map { String(origin[..<$0.lowerBound]) } ?? "https"
            return scheme + ":" + href
        }
        if href.hasPrefix("/") { return origin + removingDotSegments(href) }
        if href.isEmpty { return origin + basePath }
        if href.hasPrefix("?") || href.hasPrefix("#") {
            let path = basePath.prefix { $0 != "?" && $0 != "#" }
            return origin + path + href
        }
        let directory = basePath.prefix { $0 != "?" && $0 != "#" }
        let merged = (directory.lastIndex(of: "/").map { String(directory[...$0]) } ?? "/") + href
        return origin + removingDotSegments(merged)
    }

    /// The path (with query) of an absolute URL, for messages and logs: no scheme, host or user info.
    public static func path(of url: String) -> String {
        hasScheme(url) ? split(url).path : url
    }

    /// The URL of a new item in a collection: the collection URL (with its trailing slash) plus the file name,
    /// percent-encoded as one path segment.
    public static func item(_ fileName: String, in collection: String) -> String {
        (collection.hasSuffix("/") ? collection : collection + "/") + encodeSegment(fileName)
    }

    /// Whether two URLs (or an href and a URL) name the same resource: compared after resolving, percent-decoding
    /// the path and ignoring a trailing slash, since servers spell a collection's href in either way.
    public static func sameResource(_ left: String, _ right: String) -> Bool {
        normalized(left) == normalized(right)
    }

    static func normalized(_ url: String) -> String {
        let (origin, path) = split(url)
        var decoded = percentDecoded(String(path.prefix { $0 != "?" && $0 != "#" }))
        while decoded.hasSuffix("/") { decoded.removeLast() }
        return origin.lowercased() + decoded
    }

    /// RFC 3986 3.3 `pchar` = unreserved / pct-encoded / sub-delims / ":" / "@"; every other byte is encoded.
    static func encodeSegment(_ segment: String) -> String {
        // Most segments need no escape at all (every href of a listing goes through here for its multiget).
        guard !segment.utf8.allSatisfy({ allowedInSegment[Int($0)] }) else { return segment }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in segment.utf8 {
            if allowedInSegment[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes a path segment carries as they are, by value.
    static let allowedInSegment: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    static func percentDecoded(_ text: String) -> String {
        PercentEncoding.decoded(text)
    }

    private static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// "https://host:8443/a/b?q" -> ("https://host:8443", "/a/b?q"); user info stays out of both.
    static func split(_ url: String) -> (origin: String, path: String) {
        guard let schemeEnd = url.firstRange(of: "://") else { return ("", url) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        var authority = url[authorityStart..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let path = String(url[authorityEnd...])
        return (String(url[..<authorityStart]) + authority, path.isEmpty ? "/" : path)
    }

    /// RFC 3986 5.2.4, on a path without query (a query is carried over untouched).
    static func removingDotSegments(_ pathAndQuery: String) -> String {
        let queryStart = pathAndQuery.firstIndex { $0 == "?" || $0 == "#" } ?? pathAndQuery.endIndex
        let path = pathAndQuery[..<queryStart]
        guard path.contains(".") else { return String(pathAndQuery) }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/") + pathAndQuery[queryStart...]
    }
}

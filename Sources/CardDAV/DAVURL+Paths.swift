extension DAVURL {
    /// A path with its percent-escapes decoded: one spelling for an href however the server encodes it.
    public static func percentDecodedPath(_ path: String) -> String {
        percentDecoded(path)
    }

    /// A decoded path encoded again, segment by segment, for a request.
    public static func encodedPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encodeSegment(String($0)) }
            .joined(separator: "/")
    }
}

extension DAVURL {
    /// The decoded path of `href` when it names a direct member of the collection at `bookURL`: the same origin,
    /// and, segment by segment percent-decoded, the book's path plus one segment that is no dot segment and holds
    /// no slash. nil for anything else: another collection or user, the book itself, `..` or `%2e%2e` that climbs
    /// out, an encoded slash, a query. Hrefs from a server go through here before anything is written to them.
    public static func memberPath(_ href: String, of bookURL: String) -> String? {
        let (origin, path) = split(resolve(href, against: bookURL))
        let (bookOrigin, bookPath) = split(bookURL)
        guard origin.lowercased() == bookOrigin.lowercased(), !path.contains("?"), !path.contains("#") else {
            return nil
        }
        func segments(_ path: String) -> [String]? {
            var result: [String] = []
            for raw in path.split(separator: "/") {
                let segment = percentDecoded(String(raw))
                guard segment != ".", segment != "..", !segment.contains("/"), !segment.utf8.contains(0) else {
                    return nil
                }
                result.append(segment)
            }
            return result
        }
        guard let book = segments(String(bookPath.prefix { $0 != "?" && $0 != "#" })), let member = segments(path),
            member.count == book.count + 1, Array(member.prefix(book.count)) == book
        else { return nil }
        return "/" + member.joined(separator: "/")
    }
}

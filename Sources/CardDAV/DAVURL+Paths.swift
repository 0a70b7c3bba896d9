extension DAVURL {
    /// A path with its percent-escapes decoded: one spelling for an href however the server encodes it.
    public static func percentDecodedPath(_ path: String) -> String {
        percentDecoded(path)
    }

    /// A decoded path encoded again, segment by segment, for a request.
    public static func encodedPath(_ path: String) -> String {
        // Most paths need no escape at all (every href of a listing goes through here for its multiget).
        guard !path.utf8.allSatisfy({ $0 == UInt8(ascii: "/") || allowedInSegment[Int($0)] }) else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { encodeSegment(String($0)) }
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

extension DAVURL {
    /// `memberPath(_:of:)` for the many hrefs of one book: a listing names every item, and most servers spell an
    /// item as the book's own path plus a plain file name, which needs no resolving or decoding. Any other spelling
    /// goes through `memberPath` itself.
    public struct Members: Sendable {
        public let bookURL: String
        /// The book's path, when a plain name after it is a member exactly as spelled: a path ending in `/`, with
        /// no escapes, query, empty or dot segments; nil otherwise.
        private let plainPrefix: [UInt8]?

        public init(of bookURL: String) {
            self.bookURL = bookURL
            let path = DAVURL.split(bookURL).path
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropLast()
            let special: Set<UInt8> = [UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0]
            let plain =
                path.hasPrefix("/") && path.hasSuffix("/") && !path.utf8.contains(where: special.contains)
                && segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
            plainPrefix = plain ? Array(path.utf8) : nil
        }

        /// The decoded path of `href` when it names a direct member of the book, else nil (as `memberPath`).
        public func path(_ href: String) -> String? {
            if isPlainMember(href) { return href }
            return DAVURL.memberPath(href, of: bookURL)
        }

        /// Whether `href` is the book's path plus a plain name: a member, spelled as its decoded path.
        func isPlainMember(_ href: String) -> Bool {
            guard let plainPrefix else { return false }
            return Self.isPlainMember(href, after: plainPrefix)
        }

        private static func isPlainMember(_ href: String, after prefix: [UInt8]) -> Bool {
            var href = href
            // The bytes in place: this runs for every href of every listing and multiget.
            return href.withUTF8 { bytes in
                guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return false }
                let name = bytes[prefix.count...]
                if name.elementsEqual(".".utf8) || name.elementsEqual("..".utf8) { return false }
                return !name.contains {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "?")
                        || $0 == UInt8(ascii: "#") || $0 == 0
                }
            }
        }
    }

    /// Whether hrefs name the collection at `url` itself, as `sameResource(resolve(href, against: url), url)`,
    /// with the collection's side worked out once.
    public struct Resource: Sendable {
        public let url: String
        private let key: String
        private let members: Members

        public init(_ url: String) {
            self.url = url
            key = DAVURL.normalized(url)
            members = Members(of: url)
        }

        public func isNamed(by href: String) -> Bool {
            // A plain member's path is longer than the collection's, however it is normalised.
            if members.isPlainMember(href) { return false }
            return DAVURL.normalized(DAVURL.resolve(href, against: url)) == key
        }
    }
}

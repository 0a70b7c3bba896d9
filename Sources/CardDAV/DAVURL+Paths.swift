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

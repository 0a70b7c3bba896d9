extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks: what a person typed or pasted, a header's value,
    /// a line of a file (Foundation's trimming, which the modules do without).
    public var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

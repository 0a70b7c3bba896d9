import CCurl

/// HTTP-dates (RFC 9110 5.6.7), as `Retry-After` may carry them, in Unix seconds.
public enum HTTPDate {
    /// Accepts what recipients must (the IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", the obsolete RFC 850 form
    /// "Sunday, 06-Nov-94 08:49:37 GMT" and asctime "Sun Nov  6 08:49:37 1994") through libcurl's own parser,
    /// which is loaded anyway; nil for anything it cannot read.
    public static func parse(_ text: String) -> Int? {
        // > curl_getdate: returns -1 when it fails to parse the date string.
        let seconds = curl_getdate(text, nil)
        return seconds == -1 ? nil : Int(seconds)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP-dates (RFC 9110 5.6.7) as Unix seconds, without Foundation.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Accepts the IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form
    /// ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994"), as recipients must.
    static func parse(_ text: String) -> Int? {
        parseFields(text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
    }

    private static func parseFields(_ words: [String]) -> Int? {
        var day: Int?
        var month: Int?
        var year: Int?
        var clock: [Int]?
        switch words.count {
        case 6 where words[5] == "GMT":  // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, clock) = (Int(words[1]), monthIndex(words[2]), Int(words[3]), time(words[4]))
        case 4 where words[3] == "GMT":  // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            (day, month, clock) = (Int(parts[0]), monthIndex(parts[1]), time(words[2]))
            year = Int(parts[2]).map { $0 < 70 ? 2000 + $0 : ($0 < 100 ? 1900 + $0 : $0) }
        case 5:  // Sun Nov  6 08:49:37 1994
            (day, month, year, clock) = (Int(words[2]), monthIndex(words[1]), Int(words[4]), time(words[3]))
        default:
            return nil
        }
        guard let day, let month, let year, let clock, (1...31).contains(day) else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(clock[0])
        fields.tm_min = Int32(clock[1])
        fields.tm_sec = Int32(clock[2])
        return Int(timegm(&fields))
    }

    private static func monthIndex(_ word: String) -> Int? {
        months.firstIndex(of: word.lowercased())
    }

    private static func time(_ word: String) -> [Int]? {
        let parts = word.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]), (0...60).contains(parts[2])
        else { return nil }
        return parts
    }
}

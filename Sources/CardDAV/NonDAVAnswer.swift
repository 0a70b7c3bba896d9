import HTTP

/// What came instead of a CardDAV answer, said so that a person sees what the server is doing: a server whose
/// database is down answers 200 with an HTML error page, and a web-login address answers PROPFIND with its login
/// page. Only the page's title or the first line of text is shown, bounded and with control characters escaped,
/// never the body.
enum NonDAVAnswer {
    /// The most characters of a title or a line shown.
    static let shownLimit = 120

    /// "an HTML page, not a CardDAV answer; its title: Service down", "plain text, not a CardDAV answer: ...".
    static func describe(_ response: HTTPResponse, body: ArraySlice<UInt8>) -> String {
        let type = response.header("Content-Type")?.lowercased() ?? ""
        let text = String(decoding: body, as: UTF8.self)
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        let lowered = start.prefix(512).lowercased()
        if type.contains("html") || lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html") {
            guard let title = self.title(in: body) else {
                return "an HTML page, not a CardDAV answer (without a title)"
            }
            return "an HTML page, not a CardDAV answer; its title: \(title)"
        }
        if start.isEmpty { return "an empty body, not a CardDAV answer" }
        if type.hasPrefix("text/plain") || !start.hasPrefix("<") {
            let line = start.prefix { $0 != "\n" && $0 != "\r" }
            return "plain text, not a CardDAV answer: \(shown(String(line)))"
        }
        return "XML that is no DAV:multistatus, not a CardDAV answer"
    }

    /// The text of the first `<title>`, its entities for `&`, `<`, `>`, quotes decoded and its spaces collapsed;
    /// nil when there is none or it is empty. Searched in bytes lowered as ASCII, whose offsets are the text's.
    static func title(in body: ArraySlice<UInt8>) -> String? {
        let lowered = body.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        guard let open = lowered.firstRange(of: Array("<title".utf8)),
            let close = lowered[open.upperBound...].firstIndex(of: UInt8(ascii: ">")),
            let end = lowered[close...].firstRange(of: Array("</title".utf8))
        else { return nil }
        let from = body.startIndex + (close + 1)
        var title = String(decoding: body[from..<(body.startIndex + end.lowerBound)], as: UTF8.self)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            title = title.replacingOccurrences(of: entity, with: character)
        }
        let words = title.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return words.isEmpty ? nil : shown(words)
    }

    /// At most ``shownLimit`` characters, control characters written as `\u{1B}`: the text goes to a terminal,
    /// the journal and the status page.
    static func shown(_ text: String) -> String {
        var result = ""
        for (count, character) in text.enumerated() {
            guard count < shownLimit else { return result + "…" }
            for scalar in character.unicodeScalars {
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                    || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                {
                    result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

extension String {
    /// Foundation's replacement, which CardDAV does without.
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(of: target) {
            result += rest[..<found.lowerBound] + replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}

extension Card {
    /// What a server made of this card when it stored `stored` instead: one phrase per change, in the words a
    /// person reads (`"ADR:;;Main St 1\; Flat 2;Town" became "ADR:;;Main St 1; Flat 2;Town"`), at most `limit` of them and then a
    /// count. Compared as the content hash compares (`normalisedLines`), so a rewrite that changes nothing (folding,
    /// order, letter case, the version) is no change here either; empty when the two say the same.
    public func changes(to stored: Card, limit: Int = 3) -> [String] {
        if let text = stored.opaqueText {
            return ["it stored something that is no vCard (\(Self.quoted(text)))"]
        }
        var lost = normalisedLines()
        var gained: [String] = []
        for line in stored.normalisedLines() {
            if let index = lost.firstIndex(of: line) { lost.remove(at: index) } else { gained.append(line) }
        }
        var phrases: [String] = []
        for line in lost {
            let key = Self.propertyKey(line)
            if let index = gained.firstIndex(where: { Self.propertyKey($0) == key })
                ?? gained.firstIndex(where: { Self.propertyName($0) == Self.propertyName(line) })
            {
                phrases.append("\(Self.quoted(line)) became \(Self.quoted(gained[index]))")
                gained.remove(at: index)
            } else {
                phrases.append("\(Self.quoted(line)) was dropped")
            }
        }
        phrases += gained.map { "\(Self.quoted($0)) was added" }
        guard phrases.count > limit else { return phrases }
        return phrases.prefix(limit) + ["and \(phrases.count - limit) more changes"]
    }

    /// A normalised line's group and name (`item1.EMAIL`): the part before its parameters or value.
    private static func propertyKey(_ line: String) -> Substring {
        line.prefix { $0 != ";" && $0 != ":" }
    }

    /// A normalised line's name without its group (`EMAIL`).
    private static func propertyName(_ line: String) -> String {
        let key = propertyKey(line)
        return String(key.split(separator: ".").last ?? key)
    }

    /// Text in quotes, cut at 80 characters, a line break shown as `\n` so that the phrase stays one line.
    public static func quoted(_ text: String) -> String {
        let limit = 80
        // "\r\n" is one Character: replaced as such before either half alone.
        var shown = String(text.prefix(limit)).replacing("\r\n", with: "\\r\\n").replacing("\r", with: "\\r")
            .replacing("\n", with: "\\n")
        if text.count > limit { shown += "..." }
        return "\"\(shown)\""
    }
}

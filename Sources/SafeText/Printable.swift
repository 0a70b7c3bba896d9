/// Text from outside (a card, a server, a configuration file) as it may be shown to people: on a terminal, in the
/// journal, on the status page and in its JSON. Every character that could act instead of being read is written
/// as its code point, `\u{1B}`:
/// - C0 controls and DEL: ESC starts terminal sequences (retitle, clear, reprogram keys); a line break forges a
///   second journal entry (`\n<3>forged` reads as an error logged by us);
/// - C1 controls (U+0080 to U+009F): U+009B is a one-byte CSI on many terminals;
/// - the line and paragraph separators U+2028 and U+2029, line breaks to some readers and not to others;
/// - the bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which reorder
///   what follows them, so that a name can display as something else ("Trojan Source", CVE-2021-42574).
///
/// With `keepingLayout`, line breaks and tabs stay as they are: for multi-line text such as a whole vCard, shown
/// on a terminal where they only lay the text out.
///
/// A backslash is left alone: `\u{1B}` typed by someone reads the same as an escaped ESC, which misleads nobody
/// into running anything.
public func printable(_ text: String, keepingLayout: Bool = false) -> String {
    func shownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        isUnprintable(scalar) && !(keepingLayout && (scalar == "\n" || scalar == "\r" || scalar == "\t"))
    }
    // Nearly all text has none: no copy then.
    guard text.unicodeScalars.contains(where: shownEscaped) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
        if shownEscaped(scalar) {
            result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Whether `printable` writes `scalar` as its code point.
public func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
}

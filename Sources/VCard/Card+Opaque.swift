import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A card that even the lenient reader cannot understand is never an error on every sync and never lost: it is
/// carried as an opaque item, its text kept exactly, its identity from its `UID` line or its place, copied to the
/// other remotes as it is, and listed as unreadable.
extension Card {
    /// What lists show for an opaque card.
    public static let unreadableName = "(unreadable)"

    /// An opaque card with this text and identity.
    public init(opaque text: String, uid: String) {
        self.init(properties: [Property(name: "UID", value: uid)])
        opaqueText = text
    }

    public var isOpaque: Bool { opaqueText != nil }

    /// The value of the first `UID` line of text no reader understands (unfolded no further), if it has one.
    public static func uidLine(in text: String) -> String? {
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            let upper = line.prefix(4).uppercased()
            guard upper == "UID:" || upper == "UID;", let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            if !value.isEmpty, !value.contains(where: { $0.isASCII && $0.asciiValue.map { $0 < 0x20 } == true }) {
                return value
            }
        }
        return nil
    }

    /// The name on the first `FN` line of text no reader understands (unfolded no further), unescaped and at most
    /// ``fnLineLimit`` characters; nil when there is none, or it is empty or holds control characters.
    public static func fnLine(in text: String) -> String? {
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            let upper = line.prefix(3).uppercased()
            guard upper == "FN:" || upper == "FN;", let colon = line.firstIndex(of: ":") else { continue }
            let value = TextValue.unescape(line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"]))
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return nil }
            return value.count > fnLineLimit ? String(value.prefix(fnLineLimit)) + "…" : value
        }
        return nil
    }

    /// The longest name taken from an unreadable card's `FN` line: a list line, not a page.
    public static let fnLineLimit = 200

    /// The card stored as `text` for the contact `uid`: read again, or carried opaque when it does not read.
    public static func stored(_ text: String, uid: String) -> Card {
        var reader = CardReader(text: text)
        if case .success(let parsed)? = reader.next() { return parsed.card }
        return Card(opaque: text, uid: uid)
    }

    /// Bytes of an item no reader understands as text: UTF-8 where they are, else Latin-1, which maps every byte
    /// to one character and back.
    public static func opaqueText(_ bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension CardReader {
    /// `path` opened for reading; a failure is the input's.
    static func open(_ path: String) throws(VCardError) -> FileDescriptor {
        do {
            return try FileDescriptor(path: path)
        } catch {
            throw VCardError(.unreadableInput, line: 0, "cannot open: \(error)")
        }
    }

    /// The first `limit` bytes of a file, for an item carried opaque; `.cardTooLarge` when the file holds more.
    public static func bytes(ofFile path: String, limit: Int = Limits.maxOpaqueBytes) throws(VCardError) -> [UInt8] {
        let file = try open(path)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(file.fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { throw VCardError(.unreadableInput, line: 0, SystemError.text(errno)) }
                return bytes
            }
            guard bytes.count + count <= limit else {
                throw VCardError(.cardTooLarge, line: 0, "file is larger than \(limit >> 20) MiB")
            }
            bytes += buffer[..<count]
        }
    }
}

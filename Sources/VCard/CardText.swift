import SystemSupport

/// A card's text (UTF-8) as it travels between the reader, the store and a remote: in memory where it is small,
/// in a spool file where it is large (a photo of megabytes), so that no step holds a large card in the process's
/// own memory.
public enum CardText: Sendable {
    case bytes([UInt8])
    case spooled(SpoolFile)

    /// Texts longer than this go to a spool file (`Card.serializedText`).
    public static let spoolThreshold = 64 * 1024

    public var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .spooled(let file): file.count
        }
    }

    /// The text's bytes, valid within `body`.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch self {
        case .bytes(let bytes):
            var result: Result<R, E>?
            bytes.withUnsafeBytes { buffer in
                do throws(E) { result = .success(try body(buffer)) } catch { result = .failure(error) }
            }
            switch result {
            case .success(let value)?: return value
            case .failure(let error)?: throw error
            case nil: return try body(UnsafeRawBufferPointer(start: nil, count: 0))
            }
        case .spooled(let file): return try file.withBytes(body)
        }
    }

    /// The whole text as a String: for a person's eyes (show, edit, history), never on a sync's path.
    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// The text in pieces of at most `size` bytes, in order (for writing it out without one copy of it whole).
    public func forEachPiece<E: Error>(
        size: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        try withBytes { (all: UnsafeRawBufferPointer) throws(E) in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + size)
                try body(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}

extension Card {
    /// A stored card's text read back; as `stored(_:uid:)` for a String, a spooled text a chunk at a time.
    public static func stored(_ text: CardText, uid: String) -> Card {
        guard case .spooled = text else { return stored(text.string, uid: uid) }
        var reader = CardReader(text: text)
        if case .success(let parsed)? = reader.next() { return parsed.card }
        return Card(opaque: text.string, uid: uid)
    }
}

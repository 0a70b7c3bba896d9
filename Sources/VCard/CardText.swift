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
        case .spooled(let file):
            // In memory, whole: what the callers of this ask for (small texts, a person's eyes, tests).
            let all = file.readAll()
            return try CardText.bytes(all).withBytes(body)
        }
    }

    /// The whole text as a String: for a person's eyes (show, edit, history), never on a sync's path.
    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// The text in pieces of at most `size` bytes, in order (for writing it out without one copy of it whole); a
    /// spool file that cannot be read throws its `SystemError`.
    public func forEachPiece(size: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch self {
        case .bytes(let bytes):
            try bytes.withUnsafeBytes { all in
                var start = 0
                while start < all.count {
                    let end = min(all.count, start + size)
                    try body(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
            }
        case .spooled(let file): try file.forEachPiece(size: size, body)
        }
    }

    /// `count` bytes from `offset` (fewer at the end), read in place.
    public func bytes(at offset: Int, count: Int) -> [UInt8] {
        switch self {
        case .bytes(let bytes): return Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)])
        case .spooled(let file):
            var result = [UInt8](repeating: 0, count: max(0, min(count, file.count - offset)))
            let got = result.withUnsafeMutableBytes { file.read(at: offset, into: $0) }
            return got == result.count ? result : []
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

import SystemSupport

/// The value of a photo, logo, sound or key too large to hold in memory (`CardReader.Limits.spillBytes`): its
/// bytes in a spool file, read a piece at a time. ASCII (base64, a `data:` URI), with no line break, so
/// that it folds anywhere and needs no escaping. `prefix` (small) comes before the file's bytes: the `data:`
/// header that the 4.0 form adds to a 3.0 photo.
public struct LargeValue: Sendable {
    let file: SpoolFile
    let range: Range<Int>
    var prefix: [UInt8] = []

    init(file: SpoolFile, range: Range<Int>, prefix: [UInt8] = []) {
        self.file = file
        self.range = range
        self.prefix = prefix
    }

    var count: Int { prefix.count + range.count }

    /// The bytes in order, in pieces of at most 64 KiB (the prefix first). A spool file that can no longer be read
    /// (the disk failed under it) ends them early: what follows then sees a different value, never a crash.
    func forEachPiece(_ body: (UnsafeRawBufferPointer) -> Void) {
        prefix.withUnsafeBytes { if !$0.isEmpty { body($0) } }
        try? file.forEachPiece(in: range) { body($0) }
    }

    /// The first `count` bytes (or all), as text: what telling a value's kind needs (`data:`, a type's signature).
    func head(_ count: Int) -> String {
        var result: [UInt8] = []
        forEachPiece { piece in
            guard result.count < count else { return }
            result += piece.prefix(count - result.count)
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The whole value as a String: for a person's eyes, never on a sync's path.
    var string: String {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        forEachPiece { result += $0 }
        return String(decoding: result, as: UTF8.self)
    }

    /// The value without its first `count` bytes (a `data:` header), sharing the file.
    func dropping(_ count: Int) -> LargeValue {
        let fromPrefix = min(count, prefix.count)
        let fromFile = min(range.count, count - fromPrefix)
        return LargeValue(
            file: file, range: range.lowerBound + fromFile..<range.upperBound, prefix: Array(prefix[fromPrefix...]))
    }

    /// The value with `text` before it, sharing the file.
    func prepending(_ text: String) -> LargeValue {
        LargeValue(file: file, range: range, prefix: Array(text.utf8) + prefix)
    }

    /// Its bytes one by one, read a piece at a time (comparing two).
    struct Bytes: Sequence, IteratorProtocol {
        let value: LargeValue
        private var piece: [UInt8] = []
        private var index = 0
        /// Where the next piece starts in the whole value (prefix included).
        private var offset = 0

        init(_ value: LargeValue) {
            self.value = value
        }

        mutating func next() -> UInt8? {
            if index == piece.count {
                guard offset < value.count else { return nil }
                if offset < value.prefix.count {
                    piece = Array(value.prefix[offset...])
                } else {
                    let start = value.range.lowerBound + offset - value.prefix.count
                    piece = CardText.spooled(value.file).bytes(
                        at: start, count: Swift.min(64 * 1024, value.range.upperBound - start))
                    if piece.isEmpty { return nil }
                }
                offset += piece.count
                index = 0
            }
            defer { index += 1 }
            return piece[index]
        }
    }

    /// Whether both hold the same bytes.
    func sameBytes(as other: LargeValue) -> Bool { sameBytes(as: Bytes(other)) }

    func sameBytes(as other: some Sequence<UInt8>) -> Bool {
        var iterator = other.makeIterator()
        var same = true
        forEachPiece { piece in
            guard same else { return }
            for byte in piece where iterator.next() != byte {
                same = false
                return
            }
        }
        return same && iterator.next() == nil
    }
}

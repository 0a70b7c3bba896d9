#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension StringProtocol {
    /// Whether a UTF-8 byte of the text is `byte`, read in place: a photo's value is tens of KB, and scanning it
    /// through the UTF-8 view one index at a time was the hottest loop of reading and hashing a card (perf).
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }

    /// Whether a UTF-8 byte of the text satisfies `predicate`, read in place (see `containsByte(_:)`).
    func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(where: predicate) } ?? utf8.contains(where: predicate)
    }

    /// Whether one of the few bytes of `set` is a UTF-8 byte of the text: one memchr(3) a byte of the set, which
    /// reads a photo's value many bytes an instruction, where a loop reads one.
    func containsAnyByte(of set: [UInt8]) -> Bool {
        utf8.withContiguousStorageIfAvailable { text in
            guard let start = text.baseAddress else { return false }
            return set.contains { memchr(start, Int32($0), text.count) != nil }
        } ?? utf8.contains(where: set.contains)
    }
}

extension String {
    /// `uppercased()`, without a copy when there is nothing to upper-case (ASCII without a-z).
    var uppercasedIfNeeded: String {
        containsByte { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 >= 0x80 } ? uppercased() : self
    }

    /// `lowercased()`, without a copy when there is nothing to lower-case (ASCII without A-Z).
    var lowercasedIfNeeded: String {
        containsByte { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 } ? lowercased() : self
    }
}

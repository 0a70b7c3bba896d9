#if canImport(Glibc)
    import Glibc
#endif

/// One contact: the content lines between `BEGIN:VCARD` and `END:VCARD`, in their order.
///
/// Identity is the `UID`; `contentHash` tells whether two versions say the same thing.
public struct Card: Sendable, Equatable {
    public var properties: [Property]
    /// The text of a card that no reader understands, carried as it is (`Card+Opaque.swift`); nil for a card read.
    public internal(set) var opaqueText: String?

    public init(properties: [Property]) {
        self.properties = properties
    }

    public func first(_ name: String) -> Property? {
        properties.first { $0.isNamed(name) }
    }

    /// "3.0" or "4.0" (2.1 is upgraded to 3.0 on reading).
    public var version: String { first("VERSION")?.value ?? "3.0" }

    public var uid: String? { first("UID")?.value }

    /// About the size of the card's text (its names and values, without parameters and folding): what holding it
    /// costs, for bounding a chunk of cards by size.
    public var approximateSize: Int {
        opaqueText?.utf8.count ?? properties.reduce(0) { $0 + $1.name.utf8.count + $1.valueCount + 3 }
    }

    public mutating func setUID(_ uid: String) {
        if let index = properties.firstIndex(where: { $0.isNamed("UID") }) {
            properties[index].value = uid
            properties.removeAll { $0.isNamed("UID") && $0.value != uid }
        } else {
            properties.append(Property(name: "UID", value: uid))
        }
    }

    /// A fresh random UID: a version 4 UUID (RFC 9562 5.4), from the kernel's random generator.
    public static func makeUID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        // glibc 2.36's arc4random_buf reads the kernel's generator (getrandom) and cannot fail.
        bytes.withUnsafeMutableBytes { buffer in buffer.baseAddress.map { arc4random_buf($0, buffer.count) } }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = hexString(bytes)
        let cuts = [8, 12, 16, 20]
        var result = ""
        for (index, character) in hex.enumerated() {
            if cuts.contains(index) { result.append("-") }
            result.append(character)
        }
        return result
    }
}

func hexString(_ bytes: some Sequence<UInt8>) -> String {
    // Bytes, not Characters: appending Characters one by one was a sixth of hashing a card (perf).
    var result: [UInt8] = []
    result.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        result.append(hexDigits[Int(byte >> 4)])
        result.append(hexDigits[Int(byte & 0x0F)])
    }
    return String(decoding: result, as: UTF8.self)
}

private let hexDigits = Array("0123456789abcdef".utf8)

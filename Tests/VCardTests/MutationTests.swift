import Foundation
import Testing

@testable import VCard

/// A small deterministic generator (SplitMix64), so that a failure repeats.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Mutated corpus")
struct MutationTests {
    static let files = [
        "real/ezvcard-apple-addressbook.vcf", "real/ezvcard-evolution.vcf", "real/ezvcard-gmail-single.vcf",
        "real/folkerkinzel-wab-v21.vcf", "real/folkerkinzel-cardbook-v4.vcf", "real/vobject-vcard40-full.vcf",
        "lenient/iphone-crcrlf.vcf", "lenient/phone-shiftjis21.vcf", "lenient/outlook-cp1252.vcf",
        "lenient/bom-mixed-endings.vcf", "android21.vcf", "outlook.vcf", "icloud.vcf",
    ]

    /// Bytes that make trouble in vCards: line ends, separators, escapes, quotes, high bytes, NUL.
    static let interesting: [UInt8] = [
        0x0D, 0x0A, 0x3A, 0x3B, 0x2C, 0x3D, 0x5C, 0x22, 0x20, 0x09, 0x80, 0xE9, 0xFF, 0x00,
    ]

    @Test("random edits never crash the reader, and whatever it reads writes back to the same card", arguments: files)
    func mutations(file: String) throws {
        let original = try corpusBytes(file)
        var random = SplitMix64(state: UInt64(truncatingIfNeeded: file.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                let byte = Self.interesting.randomElement(using: &random) ?? 0
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: bytes.remove(at: at)
                }
            }
            for parsed in readAll(CardReader(bytes: bytes)).compactMap({ try? $0.get() }) {
                let written = parsed.card.serialized()
                let again = readAll(written)
                #expect(errors(again).isEmpty, "\(file): \(written)")
                let reread = try #require(again.first).get()
                #expect(again.count == 1)
                let differ = zip(reread.card.properties, parsed.card.properties).first { $0 != $1 }
                #expect(
                    reread.card == parsed.card,
                    "\(file): read \(String(describing: differ?.1)), read back \(String(describing: differ?.0))")
                #expect(reread.repairs.isEmpty, "\(file): \(reread.repairs) for \(written)")
            }
        }
    }
}

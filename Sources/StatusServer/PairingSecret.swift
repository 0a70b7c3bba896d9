import CCrypto
import SystemSupport

/// A paired browser's secret: 256 random bits, sent to that browser once in an `HttpOnly` cookie and kept by the box
/// only as its SHA-256, so that the pairings file would not let anyone who reads it in. The page's anti-forgery
/// token is derived from it: a browser that holds the cookie can ask for its token, a page elsewhere cannot read it.
public struct PairingSecret: Sendable, Equatable {
    /// 64 lowercase hex digits.
    public let text: String

    /// A new one from the system's generator (getrandom(2) on Linux).
    public static func random() -> PairingSecret {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return PairingSecret(text: hex(bytes))
    }

    /// The secret of a cookie: exactly 64 hex digits, or nil.
    public init?(cookie: String) {
        guard cookie.utf8.count == 64, cookie.utf8.allSatisfy({ Self.isHexDigit($0) }) else { return nil }
        text = cookie.lowercased()
    }

    private init(text: String) {
        self.text = text
    }

    /// What the box keeps.
    public var digest: [UInt8] { Self.sha256(Array(text.utf8)) }

    /// The anti-forgery token the page sends with each change (`X-ContactBox-Token`): 32 hex digits.
    public var token: String { String(Self.hex(Self.sha256(Array("contactbox-token \(text)".utf8))).prefix(32)) }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hex digits back to bytes; nil for anything else.
    static func bytes(hex text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexDigitValue(digits[index]), let low = hexDigitValue(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool { hexDigitValue(byte) != nil }

    /// Equal without an early exit, so that the time taken says nothing of where two digests differ.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

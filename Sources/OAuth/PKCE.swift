import CCrypto
import SystemSupport

/// Proof Key for Code Exchange (RFC 7636): a secret the box keeps from the authorization request to the code
/// exchange, so that a code copied from the person's browser is worth nothing to anyone who does not also have it.
public struct PKCE: Sendable, Equatable {
    /// 43 characters of the unreserved set (32 random bytes, base64url): RFC 7636 4.1 asks 43 to 128.
    public let verifier: String

    /// A new verifier from the system's generator (getrandom(2)).
    public static func random() -> PKCE {
        PKCE(verifier: randomText(bytes: 32))
    }

    public init(verifier: String) {
        self.verifier = verifier
    }

    /// `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))` (RFC 7636 4.2), sent with `code_challenge_method=S256`.
    public var challenge: String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let input = Array(verifier.utf8)
        input.withUnsafeBufferPointer { bytes in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(bytes.baseAddress, bytes.count, output.baseAddress)
            }
        }
        return Self.base64URL(digest)
    }

    /// `bytes` random bytes as base64url without padding: for a verifier, or a request's `state`.
    public static func randomText(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Base64 with the URL- and filename-safe alphabet, no padding (RFC 4648 section 5; RFC 7636 appendix A).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, urlSafe: true)
    }
}

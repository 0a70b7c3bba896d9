/// One header field, as sent or received. Names compare case-insensitively where it matters
/// (`HTTPResponse.header(_:)`), but are kept as written.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTPHeader {
    /// The value of the first header called `name`, ignoring case (RFC 9110 5.1: field names are case-insensitive).
    func first(named name: String) -> String? {
        first { $0.name.isEqualIgnoringASCIICase(name) }?.value
    }
}

extension String {
    func isEqualIgnoringASCIICase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { asciiLowercase($0) == asciiLowercase($1) }
    }

    func lowercasedASCII() -> String {
        String(decoding: utf8.map(asciiLowercase), as: UTF8.self)
    }
}

private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

/// Base64 (RFC 4648): the standard alphabet with padding (section 4: a CSP hash source), or the URL- and
/// filename-safe one without (section 5: PKCE, an OAuth `state`, a page cursor in a URL).
public enum Base64 {
    public static func encode(_ bytes: some Collection<UInt8>, urlSafe: Bool = false) -> String {
        let alphabet = Array(
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + (urlSafe ? "-_" : "+/")).utf8)
        let bytes = Array(bytes)
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0...chunk.count { text.append(alphabet[(value >> (18 - 6 * position)) & 0x3F]) }
            if !urlSafe { text += Array(repeating: UInt8(ascii: "="), count: 3 - chunk.count) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }
}

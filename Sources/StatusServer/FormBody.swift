/// A form's fields from an `application/x-www-form-urlencoded` body (the HTML standard's "urlencoded parser"):
/// `name=value` pairs joined by `&`, `+` for a space, `%XX` for a byte. Strict where it matters: the decoded bytes
/// must be UTF-8, a name may appear once, and there are at most `fieldLimit` fields; else nil.
enum FormBody {
    static let fieldLimit = 32

    static func fields(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard fields.count < fieldLimit else { return nil }
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty, fields[name] == nil,
                let value = decode(parts.count > 1 ? parts[1] : [])
            else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = PairingSecret.value(bytes[index + 1]),
                    let low = PairingSecret.value(bytes[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        return String(validating: decoded, as: UTF8.self)
    }
}

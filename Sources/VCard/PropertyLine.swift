/// Parses one unfolded content line (RFC 6350 3.3):
/// > contentline = [group "."] name *(";" param) ":" value CRLF
/// Parameter values may be quoted, and then hold `;`, `:` and `,`.
struct PropertyLine {
    var group: String?
    var name: String
    var parameters: [Parameter]
    /// The raw value bytes, still in the encoding the parameters declare.
    var value: ArraySlice<UInt8>
    /// Whether a parameter was not UTF-8 and was read as Windows-1252.
    var nonUTF8Parameters = false

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// Whether the line starts as a property does (a name, then `:` or `;`), even if it goes wrong later.
    static func startsLikeProperty(_ bytes: [UInt8]) -> Bool {
        guard let end = bytes.firstIndex(where: { !isNameByte($0) }), end > 0 else { return false }
        return bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: ";")
    }

    init(_ bytes: [UInt8], line: Int) throws(VCardError) {
        var index = 0
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        let fullName = String(decoding: bytes[..<index], as: UTF8.self)
        guard !fullName.isEmpty, index < bytes.count,
            bytes[index] == UInt8(ascii: ":") || bytes[index] == UInt8(ascii: ";")
        else {
            throw VCardError(.malformedLine, line: line, "not a property line: \"\(excerpt(bytes))\"")
        }
        if let dot = bytes[..<index].firstIndex(of: UInt8(ascii: ".")) {
            group = String(decoding: bytes[..<dot], as: UTF8.self)
            name = String(decoding: bytes[(dot + 1)..<index], as: UTF8.self)
        } else {
            name = fullName
        }
        parameters = []
        while index < bytes.count, bytes[index] == UInt8(ascii: ";") {
            index += 1
            let (parameter, end, lossy) = try Self.parameter(bytes, from: index, line: line, property: fullName)
            if !parameter.name.isEmpty { parameters.append(parameter) }
            if lossy { nonUTF8Parameters = true }
            index = end
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw VCardError(.malformedLine, line: line, "property \(fullName) has no ':' before its value")
        }
        value = bytes[(index + 1)...]
    }

    private static func parameter(_ bytes: [UInt8], from start: Int, line: Int, property: String)
        throws(VCardError) -> (Parameter, Int, Bool)
    {
        var lossy = false
        func text(_ slice: ArraySlice<UInt8>) -> String {
            let decoded = Charset.decode(slice, charset: nil)
            if decoded.note != nil { lossy = true }
            return decoded.text
        }
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ";"),
            bytes[index] != UInt8(ascii: ":")
        {
            index += 1
        }
        let name = text(bytes[start..<index])
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            return (Parameter(name, []), index, lossy)  // vCard 2.1 bare type: `TEL;CELL:...`
        }
        var values: [String] = []
        repeat {
            index += 1
            let valueStart: Int
            let valueEnd: Int
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                valueStart = index + 1
                guard let close = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else {
                    throw VCardError(.malformedLine, line: line, "unclosed quote in a parameter of \(property)")
                }
                valueEnd = close
                index = close + 1
            } else {
                valueStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: ";"),
                    bytes[index] != UInt8(ascii: ":")
                {
                    index += 1
                }
                valueEnd = index
            }
            values.append(Self.caretDecoded(text(bytes[valueStart..<valueEnd])))
        } while index < bytes.count && bytes[index] == UInt8(ascii: ",")
        return (Parameter(name, values), index, lossy)
    }

    /// RFC 6868 in a parameter value: `^'` is `"`, `^n` a line break, `^^` a `^`; any other `^` is itself.
    static func caretDecoded(_ value: String) -> String {
        guard value.containsByte(UInt8(ascii: "^")) else { return value }
        var result: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        var pending = iterator.next()
        while let byte = pending {
            pending = iterator.next()
            guard byte == UInt8(ascii: "^"), let next = pending else {
                result.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "'"): result.append(UInt8(ascii: "\""))
            case UInt8(ascii: "n"), UInt8(ascii: "N"): result.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "^"): result.append(next)
            default:
                result.append(byte)
                continue
            }
            pending = iterator.next()
        }
        return String(decoding: result, as: UTF8.self)
    }
}

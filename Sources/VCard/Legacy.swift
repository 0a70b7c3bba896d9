/// vCard 2.1 (as exported by old phones and Outlook) read as 3.0: the store holds only 3.0 and 4.0.
enum Legacy {
    static func upgrade(_ property: Property, value: String) -> Property {
        let name = property.name.uppercased()
        var result = Property(group: property.group, name: property.name, parameters: [], value: value)
        var types: [String] = []
        for parameter in property.parameters {
            switch (parameter.name.uppercased(), parameter.values.first?.uppercased()) {
            case ("ENCODING", "BASE64"), ("ENCODING", "B"), ("BASE64", nil):
                result.parameters.append(Parameter("ENCODING", ["b"]))
            case ("ENCODING", _), ("CHARSET", _), ("QUOTED-PRINTABLE", nil), ("8BIT", nil), ("7BIT", nil):
                continue
            case ("VALUE", "URL"):
                result.parameters.append(Parameter("VALUE", ["uri"]))
            case ("TYPE", _):
                types += parameter.values
            case (_, nil):
                types.append(parameter.name)  // bare 2.1 type: `TEL;CELL;PREF:`
            default:
                result.parameters.append(parameter)
            }
        }
        if !types.isEmpty { result.parameters.append(Parameter("TYPE", types)) }
        // A text property stays text whatever its ENCODING says, as the 3.0 reader takes it: read as binary here, its
        // backslashes would be written bare and read back as escapes, and the card would change on every pass.
        if name == "VERSION" {
            result.value = "3.0"
        } else if TextValue.textProperties.contains(name) {
            result.value = escape(value, property: name)
        } else if result.parameters.contains(where: { $0.name == "ENCODING" }) {
            result.value = TextValue.removingWhitespace(value)
        } else if name.hasPrefix("X-") {
            result.value = escape(value, property: name)
        } else {
            // "\r\n" is one Character in Swift: it must be named too.
            result.value = value.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" }
        }
        return result
    }

    /// 2.1 text escapes only `\;`; a bare `;` separates components of structured values. Writes 3.0 escapes.
    /// Unicode scalars, not Characters: a combining mark after `\`, `;` or `,` joins it into one Character, which
    /// would then go out unescaped (found by the fuzzer).
    static func escape(_ text: String, property name: String) -> String {
        let structured = TextValue.structuredProperties.contains(name)
        let list = TextValue.listProperties.contains(name)
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            let escaped: String
            switch scalar {
            case "\\" where pending == ";":
                escaped = "\\;"
                pending = scalars.next()
            case "\\": escaped = "\\\\"
            case ";": escaped = structured ? ";" : "\\;"
            case ",": escaped = list ? "," : "\\,"
            case "\r" where pending == "\n":
                escaped = "\\n"
                pending = scalars.next()
            case "\n", "\r": escaped = "\\n"
            default:
                result.append(scalar)
                continue
            }
            result.append(contentsOf: escaped.unicodeScalars)
        }
        return String(result)
    }
}

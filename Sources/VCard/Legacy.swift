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
    static func escape(_ text: String, property name: String) -> String {
        let structured = TextValue.structuredProperties.contains(name)
        let list = TextValue.listProperties.contains(name)
        var result = ""
        var characters = text.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            switch character {
            case "\\" where pending == ";":
                result += "\\;"
                pending = characters.next()
            case "\\": result += "\\\\"
            case ";": result += structured ? ";" : "\\;"
            case ",": result += list ? "," : "\\,"
            case "\n", "\r\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}

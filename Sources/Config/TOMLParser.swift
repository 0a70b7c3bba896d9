/// Reads the TOML a configuration file needs, from bytes, in one pass and without Foundation.
///
/// Supported: comments, bare, quoted and dotted keys, basic and literal strings (single- and multi-line, with
/// TOML's escapes), integers (decimal with `_`, `0x`, `0o`, `0b`), floats (with exponent, `inf`, `nan`), booleans,
/// arrays (over several lines, with comments and a trailing comma), inline tables, `[table]` and
/// `[[array.of.tables]]` headers. Dates and times are refused: the configuration uses none.
///
/// Bounded: at most ``sizeLimit`` bytes, values nested at most ``depthLimit`` deep, dotted keys of at most
/// ``keyPartLimit`` parts, so that no file can exhaust the stack.
struct TOMLParser {
    static let sizeLimit = 1 << 20
    static let depthLimit = 32
    static let keyPartLimit = 32

    /// Parses a document.
    ///
    /// `quotableKeys` are the only keys a "missing =" error may quote: a line without `=` is often a password
    /// pasted on a line of its own, whose first word would otherwise be quoted back as a key. Other errors quote
    /// the keys they are about (followed by `=`, they are keys).
    static func parse(_ bytes: [UInt8], quotableKeys: Set<String> = []) throws(TOMLError) -> TOMLTable {
        guard bytes.count <= sizeLimit else {
            throw TOMLError(message: "the file is larger than \(sizeLimit / 1024 / 1024) MiB (\(sizeLimit) bytes)")
        }
        try checkUTF8(bytes)
        var parser = TOMLParser(bytes: bytes, quotableKeys: quotableKeys)
        try parser.parseDocument()
        return parser.root.frozen()
    }

    static func parse(_ text: String, quotableKeys: Set<String> = []) throws(TOMLError) -> TOMLTable {
        try parse(Array(text.utf8), quotableKeys: quotableKeys)
    }

    // MARK: - State

    private let bytes: [UInt8]
    private let quotableKeys: Set<String>
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private let root = Node(kind: .root, line: nil)
    /// The table that `key = value` lines go into: the last header's.
    private var current: Node
    /// The key whose value is being read, as written, for messages.
    private var valueKey = ""

    private init(bytes: [UInt8], quotableKeys: Set<String>) {
        self.bytes = bytes
        self.quotableKeys = quotableKeys
        current = root
    }

    // MARK: - Document

    private mutating func parseDocument() throws(TOMLError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            lineStart = 3
        }
        while true {
            skipSpaces()
            guard let byte = peek() else { return }
            switch byte {
            case .newline, .carriageReturn:
                try newline()
            case .hash:
                try skipComment()
            case .bracketOpen:
                let header = try parseHeader()
                try endOfLine(after: "after the header \(header)")
            default:
                let key = try parseKeyValue(into: current, depth: 0)
                try endOfLine(after: "after the value of \(quoted(key))")
            }
        }
    }

    /// After a value or header: spaces, perhaps a comment, then the end of the line.
    private mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        if peek() == .hash { try skipComment() }
        guard let byte = peek() else { return }
        guard byte == .newline || byte == .carriageReturn else {
            throw failure("unexpected text \(what); a comment must start with #")
        }
        try newline()
    }

    // MARK: - Headers

    /// `[a.b]` or `[[a.b]]`: makes the table current. Returns the header as written, for messages.
    private mutating func parseHeader() throws(TOMLError) -> String {
        let headerLine = line
        let isArray = peek(1) == .bracketOpen
        position += isArray ? 2 : 1
        let path = try parseKey()
        let header = isArray ? "[[\(path.joined(separator: "."))]]" : "[\(path.joined(separator: "."))]"
        for _ in 0..<(isArray ? 2 : 1) {
            guard peek() == .bracketClose else {
                throw failure(
                    "the header \(isArray ? "[[" : "[")\(path.joined(separator: ".")) has no closing "
                        + (isArray ? "]]" : "]"))
            }
            position += 1
        }
        var table = root
        for (index, part) in path.enumerated() {
            let isLast = index == path.count - 1
            let name = path[...index].joined(separator: ".")
            guard let existing = table.slots[part] else {
                let child = Node(kind: isLast ? .header : .implicit, line: headerLine)
                table.add(part, isLast && isArray ? .tables([child]) : .table(child), line: headerLine)
                table = child
                continue
            }
            switch existing.slot {
            case .table(let child) where !isLast:
                table = child
            case .table(let child) where !isArray && child.kind == .implicit:
                child.kind = .header
                child.line = headerLine
                table = child
            case .table(let child):
                let first = child.line ?? existing.line
                let message =
                    if child.kind == .dotted {
                        "\(header) cannot be defined: \(name) is already set by dotted keys (\(name).… = …) on line "
                            + "\(first)"
                    } else if isArray {
                        "\(header) cannot be used: \(name) is already a single table ([\(name)], line \(first))"
                    } else {
                        "\(header) appears a second time (first on line \(first)): put all its settings under one "
                            + header
                    }
                throw failure(message, key: name)
            case .tables(let elements) where !isLast:
                table = elements[elements.count - 1]
            case .tables(let elements) where isArray:
                let child = Node(kind: .header, line: headerLine)
                table.slots[part] = (.tables(elements + [child]), existing.line)
                table = child
            case .tables:
                throw failure(
                    "\(header) cannot be defined: \(name) is already a list of [[\(name)]] blocks (line "
                        + "\(existing.line)); write [[\(name)]] for another one", key: name)
            case .value:
                throw failure(
                    "\(header) cannot be defined: \(name) is already set to a value on line \(existing.line), so it "
                        + "cannot also be a table", key: name)
            }
        }
        current = table
        return header
    }

    // MARK: - Keys and values

    /// `key = value` into `node`; returns the key as written.
    @discardableResult
    /// `container` is the key of the inline table `node` is, for messages.
    private mutating func parseKeyValue(
        into node: Node, depth: Int, container: String? = nil
    ) throws(TOMLError) -> String {
        let keyLine = line
        let path = try parseKey()
        let name = path.joined(separator: ".")
        guard peek() == .equals else {
            if path.allSatisfy(quotableKeys.contains) {
                throw failure("expected '=' after the key \(quoted(name))", key: name)
            }
            if let container {
                throw failure("expected '=' after a key in the table { … } of \(quoted(container))", key: container)
            }
            throw failure("expected '=' after the key: each setting is written key = value")
        }
        position += 1
        skipSpaces()
        valueKey = name
        let value = try parseValue(depth: depth)
        try insert(value, at: path, line: keyLine, into: node)
        return name
    }

    /// A key, dotted or not; leaves the position after the spaces that follow it.
    private mutating func parseKey() throws(TOMLError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard parts.count < Self.keyPartLimit else {
                throw failure("a key has more than \(Self.keyPartLimit) parts")
            }
            parts.append(try parseSimpleKey(afterDot: !parts.isEmpty))
            skipSpaces()
            guard peek() == .dot else { return parts }
            position += 1
        }
    }

    private mutating func parseSimpleKey(afterDot: Bool) throws(TOMLError) -> String {
        switch peek() {
        case .quote?:
            return try parseString(literal: false, multiline: false, isKey: true)
        case .apostrophe?:
            return try parseString(literal: true, multiline: false, isKey: true)
        case let byte? where byte.isBareKeyByte:
            let start = position
            while let byte = peek(), byte.isBareKeyByte { position += 1 }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        case .equals?:
            throw failure("a key is missing before '='")
        default:
            if afterDot { throw failure("a key is missing after '.'") }
            throw failure(
                "this is not a setting: write key = value, a [table] header, or a comment starting with #")
        }
    }

    /// Sets a (possibly dotted) key, creating the tables its leading parts name.
    private func insert(_ value: TOMLValue, at path: [String], line: Int, into node: Node) throws(TOMLError) {
        let name = path.joined(separator: ".")
        var table = node
        for (index, part) in path.dropLast().enumerated() {
            let prefix = path[...index].joined(separator: ".")
            guard let existing = table.slots[part] else {
                let child = Node(kind: .dotted, line: line)
                table.add(part, .table(child), line: line)
                table = child
                continue
            }
            switch existing.slot {
            case .table(let child) where child.kind == .dotted:
                table = child
            case .table:
                throw TOMLError(
                    line: line, key: name,
                    message: "\(quoted(name)) cannot be set: \(quoted(prefix)) is already a table (line "
                        + "\(existing.line)); put the setting under its header")
            case .tables, .value:
                throw TOMLError(
                    line: line, key: name,
                    message: "\(quoted(name)) cannot be set: \(quoted(prefix)) is already set on line "
                        + "\(existing.line), so it cannot also be a table")
            }
        }
        let last = path[path.count - 1]
        if let existing = table.slots[last] {
            throw TOMLError(
                line: line, key: name,
                message: "\(quoted(name)) is already set on line \(existing.line); each key may be given once")
        }
        table.add(last, .value(value), line: line)
    }

    private mutating func parseValue(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth < Self.depthLimit else {
            throw failure("the value of \(quoted(valueKey)) is nested more than \(Self.depthLimit) deep")
        }
        switch peek() {
        case .quote?:
            let multiline = peek(1) == .quote && peek(2) == .quote
            return .string(try parseString(literal: false, multiline: multiline, isKey: false))
        case .apostrophe?:
            let multiline = peek(1) == .apostrophe && peek(2) == .apostrophe
            return .string(try parseString(literal: true, multiline: multiline, isKey: false))
        case .bracketOpen?:
            return try parseArray(depth: depth)
        case .braceOpen?:
            return try parseInlineTable(depth: depth)
        default:
            return try parseBareValue()
        }
    }

    private mutating func parseArray(depth: Int) throws(TOMLError) -> TOMLValue {
        let startLine = line
        let key = valueKey
        position += 1
        var items: [TOMLValue] = []
        while true {
            try skipSpacesNewlinesAndComments()
            guard let byte = peek() else { throw unclosedArray(key, startLine) }
            if byte == .bracketClose { break }
            items.append(try parseValue(depth: depth + 1))
            valueKey = key
            try skipSpacesNewlinesAndComments()
            guard let next = peek() else { throw unclosedArray(key, startLine) }
            if next == .bracketClose { break }
            guard next == .comma else { throw failure("expected ',' or ']' in the list of \(quoted(key))") }
            position += 1
        }
        position += 1
        return .array(items)
    }

    private func unclosedArray(_ key: String, _ startLine: Int) -> TOMLError {
        TOMLError(line: startLine, key: key, message: "the list of \(quoted(key)) has no closing ]")
    }

    /// `{ a = 1, b.c = "x" }`, on one line (as TOML 1.0 has it), without a trailing comma.
    private mutating func parseInlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        let key = valueKey
        let node = Node(kind: .inline, line: line)
        position += 1
        skipSpaces()
        if peek() == .braceClose {
            position += 1
            return .table(node.frozen())
        }
        while true {
            skipSpaces()
            if peek() == nil || peek() == .newline || peek() == .carriageReturn || peek() == .hash {
                throw failure("the table { … } of \(quoted(key)) must end with } on the line where it starts")
            }
            try parseKeyValue(into: node, depth: depth + 1, container: key)
            skipSpaces()
            guard peek() == .comma else { break }
            position += 1
            skipSpaces()
            if peek() == .braceClose {
                throw failure(
                    "the table { … } of \(quoted(key)) ends in a comma: remove it (or write the table "
                        + "under a [header])")
            }
        }
        guard peek() == .braceClose else {
            throw failure("expected ',' or '}' in the table { … } of \(quoted(key))")
        }
        position += 1
        valueKey = key
        return .table(node.frozen())
    }

    // MARK: - Strings

    /// `"…"` or `"""…"""` with escapes, or `'…'` or `'''…'''` taken as written (`literal`); the position is on
    /// the first delimiter.
    private mutating func parseString(literal: Bool, multiline: Bool, isKey: Bool) throws(TOMLError) -> String {
        let delimiter: UInt8 = literal ? .apostrophe : .quote
        let startLine = line
        position += multiline ? 3 : 1
        if multiline { try skipFirstNewline() }
        var text: [UInt8] = []
        while true {
            guard let byte = peek() else { throw unterminated(isKey: isKey, multiline: multiline, startLine) }
            switch byte {
            case delimiter:
                guard multiline else {
                    position += 1
                    return String(decoding: text, as: UTF8.self)
                }
                if closesMultiline(delimiter, into: &text) { return String(decoding: text, as: UTF8.self) }
                text.append(byte)
                position += 1
            case .backslash where !literal:
                if multiline, isLineEndingBackslash() {
                    // A backslash at the end of a line joins it to the next, dropping the spaces in between.
                    position += 1
                    while let next = peek() {
                        if next == .space || next == .tab {
                            position += 1
                        } else if next == .newline || next == .carriageReturn {
                            try newline()
                        } else {
                            break
                        }
                    }
                } else {
                    try parseEscape(into: &text, isKey: isKey)
                }
            case .newline, .carriageReturn:
                guard multiline else { throw unterminated(isKey: isKey, multiline: false, startLine) }
                try newline()
                text.append(.newline)
            default:
                guard !byte.isControl else { throw controlCharacter(isKey: isKey) }
                text.append(byte)
                position += 1
            }
        }
    }

    /// On a `delimiter` of a multi-line string: when three close it, moves past them (and up to two more, which
    /// belong to the text: `""""a""""`) and returns true.
    private mutating func closesMultiline(_ delimiter: UInt8, into text: inout [UInt8]) -> Bool {
        guard peek(1) == delimiter, peek(2) == delimiter else { return false }
        var extra = 0
        while extra < 2, peek(3 + extra) == delimiter { extra += 1 }
        text.append(contentsOf: repeatElement(delimiter, count: extra))
        position += 3 + extra
        return true
    }

    /// A newline right after `"""` or `'''` is not part of the text.
    private mutating func skipFirstNewline() throws(TOMLError) {
        if peek() == .newline || (peek() == .carriageReturn && peek(1) == .newline) { try newline() }
    }

    /// Whether the backslash at the position ends its line (only spaces after it).
    private func isLineEndingBackslash() -> Bool {
        var index = position + 1
        while index < bytes.count, bytes[index] == .space || bytes[index] == .tab { index += 1 }
        return index == bytes.count || bytes[index] == .newline
            || (bytes[index] == .carriageReturn && index + 1 < bytes.count && bytes[index + 1] == .newline)
    }

    /// The escape at the position (on the backslash). The escaped character is never quoted in the error: it may
    /// be part of a password.
    private mutating func parseEscape(into text: inout [UInt8], isKey: Bool) throws(TOMLError) {
        let column = self.column
        position += 1
        let what = isKey ? "a quoted key" : "the text of \(quoted(valueKey))"
        guard let letter = peek() else { throw failure("\(what) ends in a backslash", column: column) }
        let replacement: UInt8? =
            switch letter {
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "t"): .tab
            case UInt8(ascii: "n"): .newline
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "r"): .carriageReturn
            case .quote, .backslash: letter
            default: nil
            }
        if let replacement {
            text.append(replacement)
            position += 1
            return
        }
        let digits = letter == UInt8(ascii: "u") ? 4 : letter == UInt8(ascii: "U") ? 8 : 0
        guard digits > 0 else {
            throw failure(
                "\(what) has an unknown escape: after a backslash only \\\", \\\\, \\n, \\t, \\r, \\b, \\f, \\u and "
                    + "\\U may follow (write \\\\ for a backslash itself)", column: column)
        }
        position += 1
        var code: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = peek().flatMap({ $0.hexValue }) else {
                throw failure(
                    "\(what) has an incomplete \\\(digits == 4 ? "u" : "U") escape: it needs \(digits) hexadecimal "
                        + "digits", column: column)
            }
            code = code << 4 | UInt32(digit)
            position += 1
        }
        guard let scalar = Unicode.Scalar(code) else {
            throw failure("\(what) has a \\u or \\U escape that is not a Unicode character", column: column)
        }
        UTF8.encode(scalar) { text.append($0) }
    }

    private func unterminated(isKey: Bool, multiline: Bool, _ startLine: Int) -> TOMLError {
        let closing = multiline ? "\"\"\" or '''" : "quote"
        let message =
            isKey
            ? "a quoted key has no closing quote"
            : "the text of \(quoted(valueKey)) has no closing \(closing)"
                + (multiline ? "" : " before the end of the line")
        return TOMLError(line: startLine, key: isKey ? nil : valueKey, message: message)
    }

    private func controlCharacter(isKey: Bool) -> TOMLError {
        failure(
            (isKey ? "a quoted key" : "the text of \(quoted(valueKey))")
                + " holds a control character: write it as an escape, such as \\t or \\u0007")
    }

    // MARK: - Numbers, booleans and the rest

    /// A value without quotes or brackets: a boolean, a number, or a mistake (text without quotes, a date).
    private mutating func parseBareValue() throws(TOMLError) -> TOMLValue {
        let column = self.column
        let start = position
        while let byte = peek(), byte.isBareValueByte { position += 1 }
        let token = bytes[start..<position]
        let key = quoted(valueKey)
        if token.isEmpty {
            if peek() == nil || peek() == .newline || peek() == .carriageReturn || peek() == .hash {
                throw failure("\(key) has no value after '='", column: column)
            }
            throw failure("the value of \(key) is not valid: text must be in quotes, \"like this\"", column: column)
        }
        if Self.looksLikeDateOrTime(token) {
            throw failure(
                "the value of \(key) looks like a date or time: dates are not used in this file", column: column)
        }
        switch String(decoding: token, as: UTF8.self) {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        switch Self.number(token) {
        case .value(let value):
            return value
        case .tooLarge:
            throw failure("the number of \(key) is too large", column: column)
        case .invalid:
            // `15m`, `abc`: a word, not a broken number (letters past a 0x, 0o or 0b, or an exponent's e, are).
            let unsigned = token.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
            let radixMarked =
                unsigned.first == UInt8(ascii: "0") && unsigned.dropFirst().first.map(\.isLetter) == true
            let isWord = token.contains { $0.isLetter && $0 | 0x20 != UInt8(ascii: "e") }
            if token.first?.isLetter == true || (isWord && !radixMarked) {
                throw failure(
                    "the value of \(key) is not valid: text must be in quotes, \"like this\"", column: column)
            }
            throw failure("the value of \(key) is not a valid number", column: column)
        }
    }

    private enum Number {
        case value(TOMLValue)
        case tooLarge
        case invalid
    }

    private static func number(_ token: ArraySlice<UInt8>) -> Number {
        // 0x, 0o, 0b: no sign, digits of the base with single underscores between them.
        if token.count > 2, token.first == UInt8(ascii: "0") {
            let marker = token[token.startIndex + 1]
            let radix =
                marker == UInt8(ascii: "x") ? 16 : marker == UInt8(ascii: "o") ? 8 : marker == UInt8(ascii: "b") ? 2 : 0
            if radix > 0 {
                let digits = token.dropFirst(2)
                guard let cleaned = digitsWithoutUnderscores(digits, radix: radix) else { return .invalid }
                guard let number = Int64(cleaned, radix: radix) else { return .tooLarge }
                return .value(.integer(number))
            }
        }
        var rest = token[...]
        var cleaned = ""
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            if sign == UInt8(ascii: "-") { cleaned = "-" }
            rest = rest.dropFirst()
        }
        let integerPart = rest.prefix { $0.isDigit || $0 == .underscore }
        rest = rest.dropFirst(integerPart.count)
        guard let integerDigits = digitsWithoutUnderscores(integerPart, radix: 10) else { return .invalid }
        // No leading zeros: 0, 0.5 and 0e3 but not 01.
        if integerDigits.count > 1, integerDigits.first == "0" { return .invalid }
        cleaned += integerDigits
        var isFloat = false
        if rest.first == .dot {
            rest = rest.dropFirst()
            let fraction = rest.prefix { $0.isDigit || $0 == .underscore }
            rest = rest.dropFirst(fraction.count)
            guard let fractionDigits = digitsWithoutUnderscores(fraction, radix: 10) else { return .invalid }
            cleaned += "." + fractionDigits
            isFloat = true
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            cleaned += "e"
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                cleaned += sign == UInt8(ascii: "-") ? "-" : ""
                rest = rest.dropFirst()
            }
            let exponent = rest.prefix { $0.isDigit || $0 == .underscore }
            rest = rest.dropFirst(exponent.count)
            guard let exponentDigits = digitsWithoutUnderscores(exponent, radix: 10) else { return .invalid }
            cleaned += exponentDigits
            isFloat = true
        }
        guard rest.isEmpty else { return .invalid }
        if isFloat {
            guard let number = Double(cleaned) else { return .invalid }
            return number.isFinite ? .value(.float(number)) : .tooLarge
        }
        guard let number = Int64(cleaned) else { return .tooLarge }
        return .value(.integer(number))
    }

    /// The digits, when there is at least one and every underscore stands between two of them.
    private static func digitsWithoutUnderscores(_ text: ArraySlice<UInt8>, radix: Int) -> String? {
        guard let first = text.first, first != .underscore, text.last != .underscore else { return nil }
        var digits = ""
        var previous: UInt8 = 0
        for byte in text {
            if byte == .underscore {
                guard previous != .underscore else { return nil }
            } else {
                guard let value = byte.hexValue, Int(value) < radix else { return nil }
                digits.unicodeScalars.append(Unicode.Scalar(byte))
            }
            previous = byte
        }
        return digits
    }

    /// `1979-05-27…` or `07:32…`.
    private static func looksLikeDateOrTime(_ token: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(token.prefix(5))
        if bytes.count == 5, bytes[0..<4].allSatisfy(\.isDigit), bytes[4] == UInt8(ascii: "-") { return true }
        return bytes.count >= 3 && bytes[0].isDigit && bytes[1].isDigit && bytes[2] == UInt8(ascii: ":")
    }

    // MARK: - Spaces, lines, comments

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// 1-based, in characters.
    private var column: Int {
        var count = 1
        for byte in bytes[lineStart..<position] where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    private mutating func skipSpaces() {
        while let byte = peek(), byte == .space || byte == .tab { position += 1 }
    }

    /// On a newline (`\n` or `\r\n`): steps over it.
    private mutating func newline() throws(TOMLError) {
        if peek() == .carriageReturn {
            guard peek(1) == .newline else {
                throw failure("a carriage return (\\r) must be followed by a line feed")
            }
            position += 1
        }
        position += 1
        line += 1
        lineStart = position
    }

    /// On a `#`: steps to the end of the line.
    private mutating func skipComment() throws(TOMLError) {
        while let byte = peek(), byte != .newline {
            if byte == .carriageReturn, peek(1) == .newline { return }
            guard !byte.isControl else { throw failure("a comment holds a control character") }
            position += 1
        }
    }

    private mutating func skipSpacesNewlinesAndComments() throws(TOMLError) {
        while let byte = peek() {
            switch byte {
            case .space, .tab: position += 1
            case .newline, .carriageReturn: try newline()
            case .hash: try skipComment()
            default: return
            }
        }
    }

    // MARK: - Errors

    /// An error on the current line, at `column` (else the current one).
    private func failure(_ message: String, key: String? = nil, column: Int? = nil) -> TOMLError {
        TOMLError(line: line, column: column ?? self.column, key: key, message: message)
    }

    private func quoted(_ key: String) -> String {
        "\"" + key + "\""
    }

    /// Invalid UTF-8 is refused with the line it is on.
    private static func checkUTF8(_ bytes: [UInt8]) throws(TOMLError) {
        var decoder = UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var line = 1
        while true {
            switch decoder.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == .newline { line += 1 }
            case .emptyInput:
                return
            case .error:
                throw TOMLError(
                    line: line, message: "this line is not UTF-8 text: save the file as UTF-8 (Unicode)")
            }
        }
    }
}

/// A table while it is read: a class, so that a header can keep adding to the table it made current.
private final class Node {
    enum Kind {
        case root
        /// Named only as part of a longer header (`a` of `[a.b]`): `[a]` may still define it.
        case implicit
        /// `[a]`, or an element of `[[a]]`.
        case header
        /// Made by a dotted key (`a.b = 1`): more dotted keys may add to it, a header may not define it.
        case dotted
        case inline
    }

    enum Slot {
        case value(TOMLValue)
        case table(Node)
        /// `[[a]]` blocks.
        case tables([Node])
    }

    var kind: Kind
    var line: Int?
    var keys: [String] = []
    var slots: [String: (slot: Slot, line: Int)] = [:]

    init(kind: Kind, line: Int?) {
        self.kind = kind
        self.line = line
    }

    func add(_ key: String, _ slot: Slot, line: Int) {
        keys.append(key)
        slots[key] = (slot, line)
    }

    func frozen() -> TOMLTable {
        // Every key in `keys` was added with a slot, together (`add`).
        let entries = keys.compactMap { key -> TOMLTable.Entry? in
            guard let (slot, line) = slots[key] else { return nil }
            let value: TOMLValue =
                switch slot {
                case .value(let value): value
                case .table(let node): .table(node.frozen())
                case .tables(let nodes): .array(nodes.map { .table($0.frozen()) })
                }
            return TOMLTable.Entry(key: key, value: value, line: line)
        }
        return TOMLTable(entries: entries, line: line)
    }
}

extension UInt8 {
    fileprivate static let tab: UInt8 = 0x09
    fileprivate static let newline: UInt8 = 0x0A
    fileprivate static let carriageReturn: UInt8 = 0x0D
    fileprivate static let space: UInt8 = 0x20
    fileprivate static let quote: UInt8 = 0x22
    fileprivate static let hash: UInt8 = 0x23
    fileprivate static let apostrophe: UInt8 = 0x27
    fileprivate static let comma: UInt8 = 0x2C
    fileprivate static let dot: UInt8 = 0x2E
    fileprivate static let equals: UInt8 = 0x3D
    fileprivate static let bracketOpen: UInt8 = 0x5B
    fileprivate static let backslash: UInt8 = 0x5C
    fileprivate static let bracketClose: UInt8 = 0x5D
    fileprivate static let underscore: UInt8 = 0x5F
    fileprivate static let braceOpen: UInt8 = 0x7B
    fileprivate static let braceClose: UInt8 = 0x7D

    fileprivate var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isLetter: Bool { (self | 0x20) >= 0x61 && (self | 0x20) <= 0x7A }
    fileprivate var isBareKeyByte: Bool { isDigit || isLetter || self == .underscore || self == 0x2D }
    /// What a number, boolean, date or (mistakenly unquoted) word is made of.
    fileprivate var isBareValueByte: Bool {
        isBareKeyByte || self == 0x2B || self == .dot || self == 0x3A
    }
    /// Control characters other than tab: not allowed in strings or comments.
    fileprivate var isControl: Bool { (self < 0x20 && self != .tab) || self == 0x7F }

    fileprivate var hexValue: UInt8? {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46: self - 0x41 + 10
        case 0x61...0x66: self - 0x61 + 10
        default: nil
        }
    }
}

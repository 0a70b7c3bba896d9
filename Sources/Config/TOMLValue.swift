/// A value of a TOML document, as ``TOMLParser`` reads it. Dates and times are not among them: the parser
/// refuses them, since the configuration uses none.
enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// An integer that fits an `Int`.
    var int: Int? {
        if case .integer(let number) = self { return Int(exactly: number) }
        return nil
    }

    var double: Double? {
        if case .float(let number) = self { return number }
        return nil
    }

    var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var array: [TOMLValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    var table: TOMLTable? {
        if case .table(let table) = self { return table }
        return nil
    }
}

/// A TOML table: its keys in the order they are written, each with the line it was written on, so that a value
/// that parses but makes no sense can be reported on its line.
///
/// Lookups are linear: a configuration table holds a handful of keys.
struct TOMLTable: Sendable, Equatable {
    struct Entry: Sendable {
        var key: String
        var value: TOMLValue
        /// 1-based; nil in tables built by hand.
        var line: Int?
    }

    private(set) var entries: [Entry]
    /// Where the table is defined: its `[header]` (or the first `[[header]]` of the element), the line of its `{`,
    /// or the first line that names it in a dotted key. Nil for the document itself.
    var line: Int?

    init(entries: [Entry], line: Int?) {
        self.entries = entries
        self.line = line
    }

    /// A table built by hand, without lines (tests compare parsed tables with these: lines do not count).
    init(_ pairs: KeyValuePairs<String, TOMLValue> = [:]) {
        self.init(entries: pairs.map { Entry(key: $0.key, value: $0.value, line: nil) }, line: nil)
    }

    var keys: [String] { entries.map(\.key) }
    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    subscript(key: String) -> TOMLValue? {
        entries.first { $0.key == key }?.value
    }

    /// The line `key` is written on; nil when the table has no such key.
    func line(of key: String) -> Int? {
        entries.first { $0.key == key }?.line
    }

    /// Tables are equal when they hold the same keys with equal values, whatever their order and lines.
    static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        lhs.entries.count == rhs.entries.count && lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }
}

/// Why a TOML document was refused, said for the person who wrote it. Messages quote at most a key, never a value
/// (a value may be a password typed in the wrong place).
struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based; nil when the problem is about the whole document (its size).
    var line: Int?
    /// 1-based, in characters; nil when there is no one place to point at.
    var column: Int?
    /// The key the problem is about, when there is one and it is safe to name.
    var key: String?
    var message: String

    init(line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    var description: String {
        switch (line, column) {
        case (let line?, let column?): "line \(line), column \(column): \(message)"
        case (let line?, nil): "line \(line): \(message)"
        default: message
        }
    }
}

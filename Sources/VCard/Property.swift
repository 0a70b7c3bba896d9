/// One parameter of a property line: `TYPE=HOME,WORK` has the name `TYPE` and two values.
///
/// Values are kept as written (quotes removed), names with their original letter case, so that a canonical card
/// serialises back byte for byte.
public struct Parameter: Sendable, Equatable {
    public var name: String
    public var values: [String]

    public init(_ name: String, _ values: [String]) {
        self.name = name
        self.values = values
    }
}

/// One content line of a card: `item1.EMAIL;TYPE=INTERNET:ada@example.org`.
///
/// `value` is the raw value after unfolding, with its escapes as written (`\n`, `\,` ...): it is decoded only when
/// asked (`text`, `components`), so unknown and `X-` properties survive untouched.
public struct Property: Sendable, Equatable {
    public var group: String?
    public var name: String
    public var parameters: [Parameter]
    public var value: String

    public init(group: String? = nil, name: String, parameters: [Parameter] = [], value: String) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.value = value
    }

    /// Matches a property name case-insensitively, as RFC 6350 3.3 says names are.
    public func isNamed(_ other: String) -> Bool {
        // Names are ASCII (letters, digits, '-'), so an ASCII case fold is exact, and far cheaper than uppercased().
        name.utf8.count == other.utf8.count && zip(name.utf8, other.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }

    /// All values of the parameters with this name (case-insensitive), in order.
    public func parameterValues(_ name: String) -> [String] {
        guard !parameters.isEmpty else { return [] }
        let upper = name.uppercased()
        return parameters.filter { $0.name.uppercasedIfNeeded == upper }.flatMap(\.values)
    }

    /// The value unescaped as one piece of text (`\n` becomes a newline, `\,` a comma ...).
    public var text: String { TextValue.unescape(value) }

    /// The value split on unescaped `;` into components, each unescaped (`N`, `ADR`, `ORG`).
    public var components: [String] { TextValue.split(value, on: UInt8(ascii: ";")).map(TextValue.unescape) }
}

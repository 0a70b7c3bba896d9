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
/// asked (`text`, `components`), so unknown and `X-` properties survive untouched. A photo, logo, sound or key of
/// megabytes keeps its value in a spool file instead (`large`): `value` then makes a String of it, which only a
/// person's request should need; the sync's steps (hash, forms, serialisation) read it in place.
public struct Property: Sendable, Equatable {
    public var group: String?
    public var name: String
    public var parameters: [Parameter]
    private var inlineValue: String
    /// The value, where it is too large to hold (`LargeValue`); nil for the others.
    public internal(set) var large: LargeValue?

    public init(group: String? = nil, name: String, parameters: [Parameter] = [], value: String) {
        self.group = group
        self.name = name
        self.parameters = parameters
        self.inlineValue = value
    }

    public var value: String {
        get { large?.string ?? inlineValue }
        set {
            inlineValue = newValue
            large = nil
        }
    }

    /// The value's size in bytes, read in place.
    public var valueCount: Int { large?.count ?? inlineValue.utf8.count }

    /// The value's first bytes (all of a value held in memory), enough to tell what it is.
    var valueHead: String { large?.head(1024) ?? inlineValue }

    /// The value's bytes in order, in pieces, read in place: a large value (a photo of megabytes) without a String
    /// of it whole.
    public func forEachValuePiece(_ body: (UnsafeRawBufferPointer) -> Void) {
        if let large { return large.forEachPiece(body) }
        var copy = inlineValue
        copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// Gives the property a large value (in place of `value`).
    mutating func setLarge(_ value: LargeValue) {
        inlineValue = ""
        large = value
    }

    public static func == (a: Property, b: Property) -> Bool {
        guard a.group == b.group, a.name == b.name, a.parameters == b.parameters else { return false }
        switch (a.large, b.large) {
        case (nil, nil): return a.inlineValue == b.inlineValue
        case (let large?, nil): return large.sameBytes(as: b.inlineValue.utf8)
        case (nil, let large?): return large.sameBytes(as: a.inlineValue.utf8)
        case (let one?, let other?): return one.count == other.count && one.sameBytes(as: other)
        }
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

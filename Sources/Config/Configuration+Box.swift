/// The box itself: the `[box]` section, which the status page may set too.
///
/// ```toml
/// [box]
/// name = "contactbox"   # the box's network name: http://contactbox.local
/// ```
public struct BoxSettings: Sendable, Equatable {
    /// A DNS label (RFC 1123): letters, digits and `-`, neither first nor last, at most 63 characters. Nil: the
    /// box keeps the name it has.
    public var name: String?

    public init(name: String? = nil) {
        self.name = name
    }

    /// The longest label DNS allows (RFC 1035, section 2.3.4).
    public static let nameLimit = 63

    /// Why `name` cannot name the box on the network, or nil when it can.
    ///
    /// > RFC 1123, 2.1: the restriction on the first character is relaxed to allow either a letter or a digit.
    public static func nameProblem(_ name: String) -> String? {
        let found = " (found \(Configuration.quoted(name)))"
        guard !name.isEmpty else { return "name is empty" }
        guard name.utf8.count <= nameLimit else {
            return "name must be at most \(nameLimit) characters, a network name's limit" + found
        }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            return "name may hold only letters, digits and '-', as a network name does, such as \"contactbox\""
                + found
        }
        guard !name.hasPrefix("-"), !name.hasSuffix("-") else {
            return "name must not start or end with '-'" + found
        }
        return nil
    }
}

extension ConfigurationReader {
    static let boxKeys = ["name"]

    mutating func readBox(_ block: Block) -> BoxSettings {
        checkKeys(block, all: Self.boxKeys, settings: Self.boxKeys)
        guard let name = string(block, "name") else { return BoxSettings() }
        if let problem = BoxSettings.nameProblem(name) {
            fail(block, "name", problem)
            return BoxSettings()
        }
        if let line = block.table.line(of: "name") { lines[.boxName] = line }
        return BoxSettings(name: name)
    }
}

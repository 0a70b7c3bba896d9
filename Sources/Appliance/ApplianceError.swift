/// Why the daemon, or one of its services, cannot do its work: a message a person can act on (Docs/contributing.md,
/// rule 4).
public struct ApplianceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

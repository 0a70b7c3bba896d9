/// A user name and password for HTTP authentication. Printing it never shows the password.
public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String {
        "Credentials(username: \(username), password: <redacted>)"
    }

    public var debugDescription: String {
        description
    }
}

/// Custom reflection keeps `dump(credentials)` from showing the password too.
extension Credentials: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": "<redacted>"])
    }
}

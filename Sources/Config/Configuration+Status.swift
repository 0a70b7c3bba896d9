/// Where the status page listens, and the password that guards it: the `[status]` section.
///
/// ```toml
/// [status]
/// listen = "0.0.0.0:8080"
/// password_file = "/etc/contactbox/status.password"
/// allowed_hosts = ["contacts.example.org"]
/// ```
public struct StatusSettings: Sendable, Equatable {
    public static let defaultHost = "0.0.0.0"
    public static let defaultPort = 8080

    /// An IPv4 address, a host name, or an IPv6 address without its brackets (`::` listens on every IPv6 network).
    public var host: String
    /// 1 to 65535.
    public var port: Int
    /// The status page's password, kept like a remote's (`password_file`, mode 600, or `password_credential`);
    /// nil leaves the page open to anyone on the network.
    public var password: SecretSource?
    /// Host names and IP addresses the page also answers to, besides the box's own names and addresses: a name
    /// given to the box in DNS, a router's address that forwards a port to it. Written without a port.
    public var allowedHosts: [String]
    /// The page over HTTPS too; nil serves it over HTTP alone.
    public var https: HTTPSSettings?

    public init(
        host: String = StatusSettings.defaultHost, port: Int = StatusSettings.defaultPort,
        password: SecretSource? = nil, allowedHosts: [String] = [], https: HTTPSSettings? = nil
    ) {
        self.host = host
        self.port = port
        self.password = password
        self.allowedHosts = allowedHosts
        self.https = https
    }

    /// `host:port` as written in the file: `0.0.0.0:8080`, `[::1]:9000`.
    public var listen: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a `listen` value was refused, said for the person who wrote it.
    struct ListenProblem: Error, Equatable {
        var message: String
    }

    /// Why an `allowed_hosts` entry cannot be a host the page answers to, or nil when it can: a host name (letters,
    /// digits, `-`, `_`, dots, a trailing dot allowed), an IPv4 address, or an IPv6 address with or without its
    /// brackets. The status server reads it again to compare (`RequestGuard.normalizedHost`).
    static func allowedHostProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return "an entry is empty" }
        let found = " (found \(Configuration.quoted(text)))"
        if text.contains("/") || text.contains("@") {
            return "write host names only, without a scheme or path, such as \"contacts.example.org\"" + found
        }
        if text.contains("*") { return "wildcards are not supported: list each name" + found }
        var address = Substring(text)
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        if address.contains(":") {
            // A colon is an IPv6 address, or a name or IPv4 address followed by a port.
            guard !address.hasPrefix("["), address.filter({ $0 == ":" }).count >= 2,
                address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
            else { return "write the host without a port: the port is not compared" + found }
            return nil
        }
        let name = text.hasSuffix(".") ? text.dropLast() : Substring(text)
        guard !name.isEmpty, name.utf8.count <= 253, !name.hasPrefix("."), !name.contains(".."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            return "not a host name or an IP address: use letters, digits, '-' and dots, such as "
                + "\"contacts.example.org\" or \"192.168.1.20\"" + found
        }
        return nil
    }

    /// Splits `listen` into host and port: `"0.0.0.0:8080"`, `"localhost:80"`, `"[::]:8080"`. An IPv6 address
    /// needs its brackets, else its last group could not be told from the port.
    static func parse(listen text: String) throws(ListenProblem) -> (host: String, port: Int) {
        let found = " (found \(Configuration.quoted(text)))"
        let shape = ListenProblem(
            message: "listen must be an address and a port, such as \"0.0.0.0:8080\" (every network), "
                + "\"127.0.0.1:8080\" (this box only) or \"[::]:8080\" (IPv6)" + found)
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw shape }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw shape }
            port = rest.dropFirst()
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ListenProblem(message: "listen: [\(host)] is not an IPv6 address" + found)
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw shape }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") {
                throw ListenProblem(
                    message: "listen: write an IPv6 address in brackets, such as \"[::]:8080\"" + found)
            }
            guard !host.isEmpty else { throw shape }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
                throw ListenProblem(
                    message: "listen: the address must be a host name, an IPv4 address or an IPv6 address in "
                        + "brackets" + found)
            }
        }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(port), (1...65_535).contains(number)
        else {
            throw ListenProblem(message: "listen: the port must be a number from 1 to 65535" + found)
        }
        return (String(host), number)
    }
}

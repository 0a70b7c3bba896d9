import SystemSupport

/// Where a household's address book lives, as the status page and `contactbox remote add` offer it: each with the
/// URL discovery starts from and one line on where to make the app password the box logs in with.
public enum SetupProvider: String, CaseIterable, Sendable {
    case icloud, google, fastmail, nextcloud, carddav, oauth, folder

    /// The name a person knows it by.
    public var title: String {
        switch self {
        case .icloud: "iCloud"
        case .google: "Google"
        case .fastmail: "Fastmail"
        case .nextcloud: "Nextcloud"
        case .carddav: "Another CardDAV server"
        case .oauth: "Another CardDAV server, signing in (OAuth)"
        case .folder: "A folder on the box"
        }
    }

    /// One line, for a household: where to make the password the box should use (never the account's own).
    public var passwordHelp: String {
        switch self {
        case .icloud:
            "Make an app-specific password at appleid.apple.com: Sign-In and Security, App-Specific Passwords."
        case .google:
            "Sign in with Google, with the client ID and secret of your own Google Cloud project (the README says "
                + "how to make them, once); no password goes to the box."
        case .fastmail:
            "Make an app password in Fastmail: Settings, Privacy & Security, App passwords (with CardDAV access)."
        case .nextcloud:
            "Make an app password in Nextcloud: Settings, Security, Devices & sessions, Create new app password."
        case .carddav:
            "Use an app password if your server offers one, else the account's password."
        case .oauth:
            "Sign in at the server's own page: give its sign-in and token addresses, the scope, and the client ID "
                + "and secret registered with it."
        case .folder:
            "No password: a folder of .vcf files on the box or a share mounted there, which the service may write."
        }
    }

    /// Whether a person must give an address: a folder's path, a Nextcloud or other server's URL.
    public var needsAddress: Bool {
        switch self {
        case .icloud, .google, .fastmail: false
        case .nextcloud, .carddav, .oauth, .folder: true
        }
    }

    /// Whether the remote logs in (every kind but a folder).
    public var needsLogin: Bool { self != .folder }

    /// Whether a person signs in at the issuer's page (OAuth) rather than typing a password.
    public var signsIn: Bool { self == .google || self == .oauth }

    /// Where discovery starts: the provider's own URL, the server's address (with Nextcloud's DAV path), or for
    /// a folder its path. nil when an address is needed and none (or an empty one) is given.
    public func start(address: String?, username: String) -> String? {
        let given = address.flatMap { $0.trimmingWhitespace.isEmpty ? nil : $0.trimmingWhitespace }
        switch self {
        case .icloud: return given ?? "https://contacts.icloud.com/"
        case .google:
            // Google names the principal by the account's address, which is the user name.
            return given ?? "https://www.googleapis.com/carddav/v1/principals/\(username)/lists/default/"
        case .fastmail: return given ?? "https://carddav.fastmail.com/"
        case .nextcloud:
            guard var server = given else { return nil }
            if !server.contains("://") { server = "https://" + server }
            // The server's address as a person copies it from the browser, or already the DAV URL.
            if server.contains("/remote.php/") { return server }
            while server.hasSuffix("/") { server.removeLast() }
            return server + "/remote.php/dav/"
        case .carddav, .oauth:
            guard let given else { return nil }
            return given.contains("://") ? given : "https://" + given
        case .folder: return given
        }
    }
}

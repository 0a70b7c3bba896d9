/// One address book the store is synced with: a `[[remote]]` block of the configuration.
public struct RemoteSettings: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A CardDAV address book (or the account's home set, discovered from `url`).
        case carddav(CardDAVSettings)
        /// A folder of `.vcf` files, one contact each (a vdir, as vdirsyncer and khard keep them).
        case vdir(folder: String, createFolder: Bool)

        public static func carddav(
            url: String, username: String, password: SecretSource, authScheme: AuthScheme, caFile: String?,
            caPath: String?, concurrency: Int
        ) -> Kind {
            .carddav(
                CardDAVSettings(
                    url: url, username: username, password: password, authScheme: authScheme, caFile: caFile,
                    caPath: caPath, concurrency: concurrency))
        }
    }

    /// Where a CardDAV book is and how to log in to it.
    public struct CardDAVSettings: Sendable, Equatable {
        public var url: String
        public var username: String
        public var password: SecretSource
        public var authScheme: AuthScheme
        /// The authority a server of the household's own is signed by; nil: the system's.
        public var caFile: String?
        public var caPath: String?
        /// Requests in flight at once (`concurrencyRange`).
        public var concurrency: Int
        /// The issuer of its tokens when `authScheme` is `oauth` (then `password` is the refresh token's file).
        public var oauth: OAuthSettings?

        public init(
            url: String, username: String, password: SecretSource, authScheme: AuthScheme, caFile: String?,
            caPath: String?, concurrency: Int
        ) {
            self.url = url
            self.username = username
            self.password = password
            self.authScheme = authScheme
            self.caFile = caFile
            self.caPath = caPath
            self.concurrency = concurrency
        }
    }

    /// HTTP authentication; `automatic` lets libcurl pick what the server offers, at the cost of one more
    /// round trip.
    public enum AuthScheme: String, Sendable, Equatable, CaseIterable {
        case basic, digest, automatic
        /// OAuth 2.0 bearer tokens (`CardDAVSettings/oauth`); the password file holds the refresh token.
        case oauth
    }

    /// Which side wins when a contact changed on both sides since the last sync; the loser goes to history.
    public enum ConflictPolicy: String, Sendable, Equatable, CaseIterable {
        /// The most recently changed version (by `REV`, else the time the change was seen).
        case newest
        case local
        case remote
    }

    /// Unique among the remotes; letters, digits, `.`, `_` and `-` (it names the remote in logs, metrics and the
    /// store).
    public var name: String
    public var kind: Kind
    public var conflictPolicy: ConflictPolicy
    /// Kept, with its contacts and sync state, but not synced until resumed (`paused = true`): a book whose
    /// server is away for a while, say, without its errors on every pass.
    public var paused: Bool

    public init(name: String, kind: Kind, conflictPolicy: ConflictPolicy = .newest, paused: Bool = false) {
        self.name = name
        self.kind = kind
        self.conflictPolicy = conflictPolicy
        self.paused = paused
    }

    /// The default number of requests in flight to one CardDAV server.
    public static let defaultConcurrency = 4
    public static let concurrencyRange = 1...16

    /// Letters, digits, '.', '_' and '-', at most 64: a remote's name names its password file and log fields.
    public static func isValidName(_ name: String) -> Bool { ConfigurationReader.isValidName(name) }

    /// What ``isValidName(_:)`` refuses, in a sentence: "a name may hold only ...".
    public static func nameProblem(_ name: String) -> String? {
        guard !isValidName(name) else { return nil }
        return "a name may hold only letters, digits, '.', '_' and '-', at most 64 (found "
            + "\(Configuration.quoted(name)))"
    }
}

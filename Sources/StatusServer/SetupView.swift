/// What `/api/setup` shows: where adding an address book from the page stands. The daemon runs each step (find the
/// account's address books, then test and add those chosen) on a thread of its own, as a network wait may take a
/// minute; the page asks again until the step is over. The password typed stays in the daemon, never sent back.
public struct SetupView: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// Nothing asked, or the last one cancelled or over.
        case idle
        /// Looking for the account's address books.
        case finding
        /// The books found, to choose from.
        case found
        /// Testing the chosen books and saving them.
        case adding
        /// Saved: the first sync of each starts now.
        case added
        /// Waiting for the person to sign in at the issuer and paste back the address it ends on
        /// (`authorizeURL`).
        case signingIn
        /// Trading the pasted code for tokens, then finding the account's books.
        case signedIn
        /// Testing a remote's new password (`remote`) before it is saved.
        case checking
        /// The new password works, and is saved.
        case replaced
        /// The last step failed: `message` says why, in a household's words.
        case failed

        /// A step runs on the daemon's thread: the page asks again until it is over (202 Accepted meanwhile).
        public var isRunning: Bool { self == .finding || self == .adding || self == .checking || self == .signedIn }
    }

    public struct Book: Sendable, Equatable {
        public var url: String
        public var name: String?
        public var contacts: Int?

        public init(url: String, name: String?, contacts: Int?) {
            self.url = url
            self.name = name
            self.contacts = contacts
        }
    }

    public struct Provider: Sendable, Equatable {
        public var id: String
        public var title: String
        /// Where to make the app password, in one line.
        public var help: String
        public var needsAddress: Bool
        public var needsLogin: Bool
        /// Signs in at the issuer's page (OAuth) instead of a password.
        public var signsIn: Bool

        public init(
            id: String, title: String, help: String, needsAddress: Bool, needsLogin: Bool, signsIn: Bool = false
        ) {
            self.id = id
            self.title = title
            self.help = help
            self.needsAddress = needsAddress
            self.needsLogin = needsLogin
            self.signsIn = signsIn
        }
    }

    public var phase: Phase
    /// The remote whose password is being replaced; nil while adding address books.
    public var remote: String?
    public var provider: String?
    public var books: [Book]
    /// The remotes the last add saved.
    public var added: [String]
    public var message: String?
    /// Where to sign in, while `signingIn`.
    public var authorizeURL: String?
    public var providers: [Provider]

    public init(
        phase: Phase, remote: String? = nil, provider: String? = nil, books: [Book] = [], added: [String] = [],
        message: String? = nil, authorizeURL: String? = nil, providers: [Provider]
    ) {
        self.authorizeURL = authorizeURL
        self.phase = phase
        self.remote = remote
        self.provider = provider
        self.books = books
        self.added = added
        self.message = message
        self.providers = providers
    }

    func render(into w: inout ByteWriter) {
        w.raw("{\"phase\":")
        w.jsonString(phase.rawValue)
        w.raw(",\"remote\":")
        w.jsonString(remote)
        w.raw(",\"provider\":")
        w.jsonString(provider)
        w.raw(",\"books\":[")
        for (index, book) in books.enumerated() {
            if index > 0 { w.raw(",") }
            w.raw("{\"url\":")
            w.jsonString(book.url)
            w.raw(",\"name\":")
            w.jsonString(book.name)
            w.raw(",\"contacts\":")
            w.jsonNumber(book.contacts.map(Int64.init))
            w.raw("}")
        }
        w.raw("],\"added\":[")
        for (index, name) in added.enumerated() {
            if index > 0 { w.raw(",") }
            w.jsonString(name)
        }
        w.raw("],\"message\":")
        w.jsonString(message)
        w.raw(",\"authorize_url\":")
        w.jsonString(authorizeURL)
        w.raw(",\"providers\":[")
        for (index, provider) in providers.enumerated() {
            if index > 0 { w.raw(",") }
            w.raw("{\"id\":")
            w.jsonString(provider.id)
            w.raw(",\"title\":")
            w.jsonString(provider.title)
            w.raw(",\"help\":")
            w.jsonString(provider.help)
            w.raw(",\"needs_address\":\(provider.needsAddress),\"needs_login\":\(provider.needsLogin)")
            w.raw(",\"signs_in\":\(provider.signsIn)}")
        }
        w.raw("]}\n")
    }
}

/// A paired browser's step in adding an address book: the form's fields (`provider`, `address`, `username`,
/// `password` to find; `books`, one URL a line, and `version` to add); or a remote's new password (`remote`,
/// `password`), tested before it is saved.
public enum SetupRequest: Sendable, Equatable {
    case read
    case find([String: String])
    case add([String: String])
    case cancel
    case replacePassword([String: String])
    /// Start signing in (`provider`, `username`, `client_id`, `client_secret`; for another issuer `address`,
    /// `authorization_url`, `token_url`, `scope`), and what the person pasted back (`pasted`). The status server
    /// adds `@browser`, the paired browser's id: the answer must come from the browser that started.
    case signIn([String: String])
    case signedIn([String: String])
}

/// The daemon's answer: where setting up stands, or why the step cannot start (400 a field, 409 another step runs).
public enum SetupAnswer: Sendable, Equatable {
    case view(SetupView)
    case refused(status: Int, message: String)
}

/// What `/api/settings` shows and takes: the settings a paired browser may change, as the daemon reads them from
/// both files (the status server knows no configuration; the daemon answers through ``SettingsRequest``).
public struct SettingsView: Sendable, Equatable {
    public struct Remote: Sendable, Equatable {
        public var name: String
        /// `carddav` or `vdir`.
        public var kind: String
        /// The URL or the folder.
        public var location: String
        public var username: String?
        public var paused: Bool
        /// Which side wins a conflict: `newest`, `local` or `remote`.
        public var conflict: String
        /// Signs in with OAuth: the page offers *Sign in again* rather than a new password.
        public var signsIn: Bool
        /// Set in /etc by the administrator: the page shows it and cannot change it.
        public var fixed: Bool
        /// "settings.toml:12" or "…contactbox.toml:30, fixed by the administrator".
        public var origin: String

        public init(
            name: String, kind: String, location: String, username: String?, paused: Bool, conflict: String = "newest",
            signsIn: Bool = false, fixed: Bool, origin: String
        ) {
            self.signsIn = signsIn
            self.name = name
            self.kind = kind
            self.location = location
            self.username = username
            self.paused = paused
            self.conflict = conflict
            self.fixed = fixed
            self.origin = origin
        }
    }

    /// The settings file's version: a change must send it back (`version`), and is refused (412) when the file
    /// changed meanwhile.
    public var version: String
    /// "15m".
    public var interval: String
    public var intervalFixed: Bool
    public var boxName: String?
    public var boxNameFixed: Bool
    /// Whether the page asks for a password (never the password itself).
    public var pagePassword: Bool
    public var pagePasswordFixed: Bool
    public var remotes: [Remote]
    /// The settings file's problems, each with its line: what the box runs without.
    public var problems: [String]

    public init(
        version: String, interval: String, intervalFixed: Bool, boxName: String?, boxNameFixed: Bool,
        pagePassword: Bool = false, pagePasswordFixed: Bool = false, remotes: [Remote], problems: [String]
    ) {
        self.version = version
        self.interval = interval
        self.intervalFixed = intervalFixed
        self.boxName = boxName
        self.boxNameFixed = boxNameFixed
        self.pagePassword = pagePassword
        self.pagePasswordFixed = pagePasswordFixed
        self.remotes = remotes
        self.problems = problems
    }

    func render(into w: inout ByteWriter) {
        w.raw("{\"version\":")
        w.jsonString(version)
        w.raw(",\"sync\":{\"interval\":")
        w.jsonString(interval)
        w.raw(",\"fixed\":\(intervalFixed)},\"box\":{\"name\":")
        w.jsonString(boxName)
        w.raw(",\"fixed\":\(boxNameFixed)},\"page_password\":{\"set\":\(pagePassword),\"fixed\":\(pagePasswordFixed)}")
        w.raw(",\"remotes\":[")
        for (index, remote) in remotes.enumerated() {
            if index > 0 { w.raw(",") }
            w.raw("{\"name\":")
            w.jsonString(remote.name)
            w.raw(",\"kind\":")
            w.jsonString(remote.kind)
            w.raw(",\"location\":")
            w.jsonString(remote.location)
            w.raw(",\"username\":")
            w.jsonString(remote.username)
            w.raw(",\"paused\":\(remote.paused),\"conflict\":")
            w.jsonString(remote.conflict)
            w.raw(",\"signs_in\":\(remote.signsIn)")
            w.raw(",\"fixed\":\(remote.fixed),\"origin\":")
            w.jsonString(remote.origin)
            w.raw("}")
        }
        w.raw("],\"problems\":[")
        for (index, problem) in problems.enumerated() {
            if index > 0 { w.raw(",") }
            w.jsonString(problem)
        }
        w.raw("]}\n")
    }
}

/// A paired browser's request about the settings: to read them, or a change (the form's fields: `version`,
/// `action` and what the action needs).
public enum SettingsRequest: Sendable, Equatable {
    case read
    case change([String: String])
}

/// The daemon's answer: the settings (after the change, if one was asked), or why not, with the HTTP status.
public enum SettingsAnswer: Sendable, Equatable {
    case view(SettingsView)
    /// 400 a field, 409 set by the administrator, 412 changed meanwhile, 507 the disk: `message` says which.
    case refused(status: Int, message: String)
}

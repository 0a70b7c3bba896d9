/// Turns a parsed TOML table into a ``Configuration``, noting every problem instead of stopping at the first, so
/// that one run of `check-config` shows them all.
struct ConfigurationReader {
    /// One table of the file and how its problems are introduced (`remote "icloud": `).
    struct Block {
        var table: TOMLTable
        var context: String
    }

    /// Which file is read: the administrator's, which may set everything, or the settings file, which holds what
    /// the status page and the command line may set, its passwords in `secretsDirectory`.
    enum Role: Equatable {
        case administrator
        case settings(secretsDirectory: String)
    }

    let path: String
    let role: Role
    private(set) var errors: [ConfigurationError] = []
    /// The line each setting the page may change is written on, for ``ConfigurationCheck/origin(of:)``.
    var lines: [SettingKey: Int] = [:]

    init(path: String, role: Role = .administrator) {
        self.path = path
        self.role = role
    }

    static let rootKeys = ["store", "sync", "remote", "panel", "status", "history", "box"]
    static let syncKeys = ["interval", "full_check", "max_delete_share"]
    static let historyKeys = ["max_age", "max_versions"]
    static let commonRemoteKeys = ["name", "kind", "conflict", "paused"]
    static let carddavKeys =
        [
            "url", "username", "password_file", "password_credential", "auth", "ca_file", "ca_path", "concurrency",
            "allow_insecure_http",
        ] + oauthKeys
    static let vdirKeys = ["folder", "create_folder"]
    /// What the settings file may hold: what the status page and the command line set.
    static let settingsRootKeys = ["sync", "remote", "status", "box"]
    static let settingsSyncKeys = ["interval"]
    static let settingsStatusKeys = ["password_file"]
    /// Every key the file may hold, and `password`, which it must not: the keys a syntax error may quote.
    static let allKeys = Set(
        rootKeys + syncKeys + historyKeys + commonRemoteKeys + carddavKeys + vdirKeys + panelKeys + statusKeys
            + boxKeys + ["password"])

    mutating func read(_ root: TOMLTable) -> Configuration {
        let top = Block(table: root, context: "")
        checkKeys(top, all: Self.rootKeys, settings: Self.settingsRootKeys)
        // The settings file's root refuses the administrator's keys above; their values are not read at all.
        let isAdministrator = role == .administrator
        let storePath = (isAdministrator ? absolutePath(top, "store") : nil) ?? Configuration.defaultStorePath
        var sync = SyncSettings()
        if let block = section(top, "sync") { sync = readSync(block) }
        var box = BoxSettings()
        if let block = section(top, "box") { box = readBox(block) }
        var remotes: [RemoteSettings] = []
        var nameLines: [String: Int?] = [:]
        if let value = root["remote"] {
            if let tables = value.array?.compactMap(\.table), tables.count == value.array?.count {
                if tables.count > Configuration.remoteLimit {
                    // One problem, not one per block past the limit; and the blocks past it are not read at all.
                    let extra = tables[Configuration.remoteLimit]
                    errors.append(
                        error(
                            extra.line, "remote",
                            "too many [[remote]] blocks: \(Configuration.grouped(tables.count)) found, at most "
                                + "\(Configuration.remoteLimit) are allowed; a box syncs a household's address "
                                + "books, not more"))
                }
                for (index, table) in tables.prefix(Configuration.remoteLimit).enumerated() {
                    guard let remote = readRemote(table, index: index) else { continue }
                    let line = table.line(of: "name") ?? table.line
                    if let first = nameLines[remote.name] {
                        errors.append(
                            error(
                                line, "name",
                                "remote \"\(remote.name)\": another remote has this name"
                                    + (first.map { " (line \($0))" } ?? "") + "; each needs its own"))
                    } else {
                        nameLines[remote.name] = line
                    }
                    remotes.append(remote)
                }
            } else {
                fail(top, "remote", "remote must be written as [[remote]] blocks, one per address book")
            }
        }
        // No [[remote]] at all is a box not set up yet, not a mistake: the daemon starts and the page offers to add
        // one (`check-config` says so as a note).
        var panel = PanelSettings()
        if isAdministrator, let block = section(top, "panel") { panel = readPanel(block) }
        var status = StatusSettings()
        if let block = section(top, "status") { status = readStatus(block) }
        var history = HistorySettings()
        if isAdministrator, let block = section(top, "history") { history = readHistory(block) }
        return Configuration(
            storePath: storePath, sync: sync, remotes: remotes, panel: panel, status: status, history: history,
            box: box)
    }

    private mutating func readHistory(_ block: Block) -> HistorySettings {
        checkKeys(block, all: Self.historyKeys, settings: [])
        var history = HistorySettings()
        if let span = duration(block, "max_age") { history.maxAge = span }
        if let value = block.table["max_versions"] {
            if let count = value.int, count >= 0, count <= 100_000 {
                history.maxVersions = count == 0 ? nil : Int(count)
            } else {
                fail(
                    block, "max_versions",
                    "max_versions must be a whole number of versions per contact, such as 50, or 0 for no limit"
                        + " (found \(show(value)))")
            }
        }
        return history
    }

    private mutating func readSync(_ block: Block) -> SyncSettings {
        checkKeys(block, all: Self.syncKeys, settings: Self.settingsSyncKeys)
        var sync = SyncSettings()
        if let span = duration(block, "interval") {
            sync.interval = span
            if let line = block.table.line(of: "interval") { lines[.syncInterval] = line }
        }
        if let span = duration(block, "full_check") { sync.fullCheck = span }
        if let value = block.table["max_delete_share"] {
            if let share = value.double ?? value.int.map(Double.init), share > 0, share <= 1 {
                sync.maxDeleteShare = share
            } else {
                fail(
                    block, "max_delete_share",
                    "max_delete_share must be a number above 0 and at most 1, such as 0.3 (found \(show(value)))")
            }
        }
        return sync
    }

    private mutating func readRemote(_ table: TOMLTable, index: Int) -> RemoteSettings? {
        var block = Block(table: table, context: "remote #\(index + 1): ")
        let name = string(block, "name")
        if let name {
            if Self.isValidName(name) {
                block.context = "remote \"\(name)\": "
                if lines[.remote(name)] == nil, let line = table.line { lines[.remote(name)] = line }
            } else {
                fail(
                    block, "name",
                    "name may hold only letters, digits, '.', '_' and '-', at most 64 "
                        + "(found \(Configuration.quoted(name)))")
            }
        } else if table["name"] == nil {
            fail(block, nil, "name is missing")
        }
        let policy = choice(block, "conflict", RemoteSettings.ConflictPolicy.self) ?? .newest
        let paused = bool(block, "paused") ?? false
        let kind: RemoteSettings.Kind?
        let kindName = string(block, "kind")
        switch kindName {
        case "carddav":
            checkKeys(block, allowed: Self.commonRemoteKeys + Self.carddavKeys, otherKind: ("vdir", Self.vdirKeys))
            kind = readCardDAV(block)
        case "vdir":
            checkKeys(block, allowed: Self.commonRemoteKeys + Self.vdirKeys, otherKind: ("carddav", Self.carddavKeys))
            kind = readVdir(block)
        case let other?:
            fail(block, "kind", "kind must be one of carddav, vdir (found \(Configuration.quoted(other)))")
            kind = nil
        case nil:
            if table["kind"] == nil { fail(block, nil, "kind is missing: write kind = \"carddav\" or \"vdir\"") }
            kind = nil
        }
        if kindName != "carddav", kindName != "vdir" {
            // Still catch typos and a password written inline, whatever the kind was meant to be.
            checkKeys(block, allowed: Self.commonRemoteKeys + Self.carddavKeys + Self.vdirKeys)
        }
        guard let name, let kind else { return nil }
        return RemoteSettings(name: name, kind: kind, conflictPolicy: policy, paused: paused)
    }

    private mutating func readCardDAV(_ block: Block) -> RemoteSettings.Kind? {
        let url = required(block, "url")
        let insecure = bool(block, "allow_insecure_http") ?? false
        if let url { checkURL(block, url, allowInsecure: insecure) }
        let username = required(block, "username")
        let password = secret(block, required: true)
        let auth = choice(block, "auth", RemoteSettings.AuthScheme.self) ?? .basic
        let caFile = absolutePath(block, "ca_file")
        let caPath = absolutePath(block, "ca_path")
        var concurrency = RemoteSettings.defaultConcurrency
        if let value = block.table["concurrency"] {
            let range = RemoteSettings.concurrencyRange
            if let number = value.int, range.contains(number) {
                concurrency = number
            } else {
                fail(
                    block, "concurrency",
                    "concurrency must be a whole number from \(range.lowerBound) to \(range.upperBound) "
                        + "(found \(show(value)))")
            }
        }
        let oauth = readOAuth(block, auth: auth, allowInsecure: insecure)
        guard let url, let username, let password, auth != .oauth || oauth != nil else { return nil }
        var card = RemoteSettings.CardDAVSettings(
            url: url, username: username, password: password, authScheme: auth, caFile: caFile, caPath: caPath,
            concurrency: concurrency)
        card.oauth = oauth
        return .carddav(card)
    }

    private mutating func readVdir(_ block: Block) -> RemoteSettings.Kind? {
        let folder = required(block, "folder").flatMap { absolutePath(block, "folder", value: $0) }
        let create = bool(block, "create_folder") ?? false
        return folder.map { .vdir(folder: $0, createFolder: create) }
    }

    /// A password's source: `password_file` or `password_credential`, never both. A missing one is an error only
    /// when `required`.
    mutating func secret(_ block: Block, required: Bool) -> SecretSource? {
        switch (string(block, "password_file"), string(block, "password_credential")) {
        case (let file?, nil):
            guard let file = absolutePath(block, "password_file", value: file) else { return nil }
            if case .settings(let secrets) = role, !Self.isDirectlyInside(secrets, file) {
                // The page writes only there; a password file elsewhere would let the settings file point the
                // box at any file it can read.
                fail(
                    block, "password_file",
                    "password_file must be a file in \(Configuration.shown(secrets)), where the status page keeps "
                        + "passwords (found \(Configuration.quoted(file)))")
                return nil
            }
            return .file(file)
        case (nil, let name?):
            if case .settings = role {
                fail(
                    block, "password_credential",
                    "password_credential is set in the administrator's file (\(Configuration.installedPath)), "
                        + "with the unit's LoadCredential=; the settings file uses password_file")
                return nil
            }
            if !name.isEmpty, !name.contains("/"), name != ".", name != ".." { return .credential(name) }
            fail(
                block, "password_credential",
                "password_credential must be a credential name without '/' (found \(Configuration.quoted(name)))")
            return nil
        case (_?, _?):
            fail(block, "password_credential", "give either password_file or password_credential, not both")
            return nil
        case (nil, nil):
            if required, block.table["password_file"] == nil, block.table["password_credential"] == nil {
                fail(block, nil, "password_file is missing (or password_credential, under systemd)")
            }
            return nil
        }
    }

    /// A table of the file such as `[sync]`; nil, and an error, when the key holds something else.
    mutating func section(_ top: Block, _ key: String) -> Block? {
        guard let value = top.table[key] else { return nil }
        guard let table = value.table else {
            fail(top, key, "\(key) must be a table: write [\(key)] on a line of its own, its settings below")
            return nil
        }
        return Block(table: table, context: "[\(key)] ")
    }

    // MARK: - Values

    mutating func checkURL(_ block: Block, _ url: String, key: String = "url", allowInsecure: Bool) {
        let lowered = url.lowercased()
        let secure = lowered.hasPrefix("https://")
        guard secure || lowered.hasPrefix("http://") else {
            return fail(block, key, "\(key) must start with https:// (found \(Configuration.quoted(url)))")
        }
        let afterScheme = url.drop { $0 != "/" }.dropFirst(2)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") {
            // Do not quote the URL: what is before the @ may be a password.
            return fail(block, key, "\(key) must not hold a user name or password: use username and password_file")
        }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.dropFirst().prefix { $0 != "]" }
        } else {
            host = authority.prefix { $0 != ":" }
        }
        guard !host.isEmpty else {
            return fail(block, key, "\(key) has no host name (found \(Configuration.quoted(url)))")
        }
        if !secure, !allowInsecure, !["localhost", "127.0.0.1", "::1"].contains(host.lowercased()) {
            fail(
                block, key,
                "\(key) must use https://: http:// would send the password unencrypted (to allow it on a trusted "
                    + "network, add allow_insecure_http = true)")
        }
    }

    private mutating func duration(_ block: Block, _ key: String) -> Duration? {
        guard let value = block.table[key] else { return nil }
        guard let text = value.string else {
            fail(block, key, "\(key) must be a duration in quotes, such as \"15m\" (found \(show(value)))")
            return nil
        }
        guard let span = Configuration.duration(text) else {
            fail(
                block, key,
                "\(key): \(Configuration.quoted(text)) is not a duration; write a number and a unit, such as "
                    + "\"30s\", \"15m\", \"1h\", \"1d\" or \"1h30m\"")
            return nil
        }
        return span
    }

    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ block: Block, _ key: String, _ type: Choice.Type
    ) -> Choice? where Choice.RawValue == String {
        guard let text = string(block, key) else { return nil }
        if let value = Choice(rawValue: text) { return value }
        let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
        fail(block, key, "\(key) must be one of \(names) (found \(Configuration.quoted(text)))")
        return nil
    }

    mutating func required(_ block: Block, _ key: String) -> String? {
        if block.table[key] == nil { fail(block, nil, "\(key) is missing") }
        guard let text = string(block, key) else { return nil }
        guard !text.isEmpty else {
            fail(block, key, "\(key) is empty")
            return nil
        }
        return text
    }

    mutating func absolutePath(_ block: Block, _ key: String, value: String? = nil) -> String? {
        guard let path = value ?? string(block, key) else { return nil }
        guard path.hasPrefix("/") else {
            fail(block, key, "\(key) must be an absolute path, starting with / (found \(Configuration.quoted(path)))")
            return nil
        }
        return path
    }

    mutating func string(_ block: Block, _ key: String) -> String? {
        guard let value = block.table[key] else { return nil }
        guard let text = value.string else {
            fail(block, key, "\(key) must be text in quotes (found \(show(value)))")
            return nil
        }
        return text
    }

    mutating func bool(_ block: Block, _ key: String) -> Bool? {
        guard let value = block.table[key] else { return nil }
        guard let flag = value.bool else {
            fail(block, key, "\(key) must be true or false, without quotes (found \(show(value)))")
            return nil
        }
        return flag
    }

    /// A value as found, for messages: numbers and words as written, anything else by its kind.
    func show(_ value: TOMLValue) -> String {
        switch value {
        case .string(let text): Configuration.quoted(text)
        case .integer(let number): String(number)
        case .float(let number): String(number)
        case .bool(let flag): String(flag)
        case .table: "a table"
        case .array: "a list"
        }
    }

    // MARK: - Keys

    /// `all` in the administrator's file; in the settings file `settings` alone, and the others said to be the
    /// administrator's.
    mutating func checkKeys(_ block: Block, all: [String], settings: [String]) {
        if case .settings = role {
            checkKeys(block, allowed: settings, administrator: all)
        } else {
            checkKeys(block, allowed: all)
        }
    }

    mutating func checkKeys(
        _ block: Block, allowed: [String], administrator: [String] = [],
        otherKind: (kind: String, keys: [String])? = nil
    ) {
        for key in block.table.keys.sorted() where !allowed.contains(key) {
            if administrator.contains(key) {
                fail(
                    block, key,
                    "\(key) can be set only in the administrator's file (\(Configuration.installedPath)), not in the "
                        + "settings file")
            } else if key == "password" {
                fail(
                    block, key,
                    "a password does not belong in the configuration file, which other users can "
                        + "read: put it in a file only contactbox can read (chmod 600) and name that file with "
                        + "password_file")
            } else if let otherKind, otherKind.keys.contains(key) {
                fail(block, key, "\(key) is only for kind = \"\(otherKind.kind)\"")
            } else if let guess = Self.nearest(to: key, in: allowed) {
                fail(block, key, "unknown key \(key) (did you mean \(guess)?)")
            } else {
                fail(block, key, "unknown key \(key)")
            }
        }
    }

    /// The allowed key a typo most likely meant: at most two edits away.
    static func nearest(to key: String, in candidates: [String]) -> String? {
        let best = candidates.map { ($0, editDistance(Array(key), Array($0))) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= 2 else { return nil }
        return best.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Whether `file` is a file directly in `folder`: no sub-folder, no `..`.
    static func isDirectlyInside(_ folder: String, _ file: String) -> Bool {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard file.hasPrefix(prefix) else { return false }
        let rest = file.dropFirst(prefix.count)
        return !rest.isEmpty && !rest.contains("/") && rest != "." && rest != ".."
    }

    /// What a remote (or a board) may be named: it names files (`secrets/NAME.password`) and log fields.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }

    // MARK: - Errors

    mutating func fail(_ block: Block, _ key: String?, _ message: String) {
        // The key's line, else (a key that is missing) the line of the block's header.
        errors.append(error(key.flatMap(block.table.line(of:)) ?? block.table.line, key, block.context + message))
    }

    func error(_ line: Int?, _ key: String?, _ message: String) -> ConfigurationError {
        ConfigurationError(file: path, line: line, key: key, message: message)
    }
}

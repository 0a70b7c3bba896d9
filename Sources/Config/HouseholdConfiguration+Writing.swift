/// The settings file's text: the TOML subset the reader takes back, values escaped as TOML's basic strings.
extension HouseholdConfiguration {
    /// The text ``SettingsFile`` writes. Defaults are left out, so that the file says what the household chose.
    public func settingsText() -> String {
        var lines = [
            "# The settings the status page and `contactbox` commands set. The administrator's file,",
            "# \(Configuration.installedPath), wins where both set a value.",
        ]
        if let boxName {
            lines += ["", "[box]", "name = \(Self.quote(boxName))"]
        }
        if let syncInterval {
            lines += ["", "[sync]", "interval = \(Self.quote(Configuration.durationText(syncInterval)))"]
        }
        if case .file(let file)? = statusPassword {
            lines += ["", "[status]", "password_file = \(Self.quote(file))"]
        }
        for remote in remotes {
            lines += [""] + Self.block(remote)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func block(_ remote: RemoteSettings) -> [String] {
        var lines = ["[[remote]]", "name = \(quote(remote.name))"]
        switch remote.kind {
        case .carddav(let card):
            let (url, username, password, auth) = (card.url, card.username, card.password, card.authScheme)
            let (caFile, caPath, concurrency) = (card.caFile, card.caPath, card.concurrency)
            lines += ["kind = \"carddav\"", "url = \(quote(url))", "username = \(quote(username))"]
            switch password {
            case .file(let file): lines.append("password_file = \(quote(file))")
            case .credential(let name): lines.append("password_credential = \(quote(name))")
            }
            if auth != .basic { lines.append("auth = \(quote(auth.rawValue))") }
            if let caFile { lines.append("ca_file = \(quote(caFile))") }
            if let caPath { lines.append("ca_path = \(quote(caPath))") }
            if concurrency != RemoteSettings.defaultConcurrency { lines.append("concurrency = \(concurrency)") }
            if let oauth = card.oauth { lines += oauth.settingsLines(quote: quote) }
            if url.lowercased().hasPrefix("http://") { lines.append("allow_insecure_http = true") }
        case .vdir(let folder, let createFolder):
            lines += ["kind = \"vdir\"", "folder = \(quote(folder))"]
            if createFolder { lines.append("create_folder = true") }
        }
        if remote.conflictPolicy != .newest { lines.append("conflict = \(quote(remote.conflictPolicy.rawValue))") }
        if remote.paused { lines.append("paused = true") }
        return lines
    }

    /// A TOML basic string: `"`, `\` and every control character escaped, the rest as it is.
    static func quote(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value):
                let digits = String(scalar.value, radix: 16, uppercase: true)
                quoted += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

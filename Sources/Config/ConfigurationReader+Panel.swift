/// The `[panel]` and `[status]` sections of the configuration.
extension ConfigurationReader {
    static let panelKeys = ["board"]
    static let statusKeys = ["listen", "password_file", "password_credential", "allowed_hosts"] + httpsKeys

    mutating func readPanel(_ block: Block) -> PanelSettings {
        checkKeys(block, all: Self.panelKeys, settings: [])
        guard let board = required(block, "board") else { return PanelSettings() }
        // A name is looked up in the boards folder; anything with a slash is a file, and only an absolute path
        // means the same file whatever folder the daemon was started in.
        let isPath = board.hasPrefix("/")
        guard isPath || (!board.contains("/") && Self.isValidName(board)) else {
            fail(
                block, "board",
                "board must be a board name such as \"raspberry-pi-4\" (a file in the boards folder), "
                    + "\"simulated\", or an absolute path to a board file (found \(Configuration.quoted(board)))")
            return PanelSettings()
        }
        return PanelSettings(board: board)
    }

    mutating func readStatus(_ block: Block) -> StatusSettings {
        checkKeys(block, all: Self.statusKeys, settings: Self.settingsStatusKeys)
        var status = StatusSettings()
        if let text = string(block, "listen") {
            do {
                (status.host, status.port) = try StatusSettings.parse(listen: text)
            } catch {
                fail(block, "listen", error.message)
            }
        }
        status.https = readHTTPS(block)
        status.password = secret(block, required: false)
        if status.password != nil,
            let line = block.table.line(of: "password_file") ?? block.table.line(of: "password_credential")
        {
            lines[.statusPassword] = line
        }
        if let value = block.table["allowed_hosts"] {
            let key = "allowed_hosts"
            let hosts = value.array?.compactMap(\.string)
            if let hosts, hosts.count == value.array?.count {
                for host in hosts {
                    if let problem = StatusSettings.allowedHostProblem(host) {
                        fail(block, key, "\(key): \(problem)")
                    } else {
                        status.allowedHosts.append(host)
                    }
                }
            } else {
                fail(
                    block, key,
                    "\(key) must be a list of host names in quotes, such as [\"contacts.example.org\"] "
                        + "(found \(show(value)))")
            }
        }
        return status
    }
}

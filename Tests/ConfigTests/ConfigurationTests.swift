import Testing

@testable import Config

@Suite("Reading a configuration")
struct ConfigurationTests {
    @Test("The shipped example file parses into what its comments say, with no remote: a fresh box is set up later")
    func exampleFileParses() throws {
        let configuration = try Configuration.load(path: deployFolder + "/contactbox.example.toml")
        #expect(configuration.storePath == "/var/lib/contactbox/contacts.sqlite")
        #expect(
            configuration.sync
                == SyncSettings(interval: .seconds(900), fullCheck: .seconds(86_400), maxDeleteShare: 0.3))
        #expect(configuration.remotes.isEmpty)
        #expect(configuration.box == BoxSettings())
    }

    @Test("The example's commented-out remotes, uncommented as its comment says, are what their comments say")
    func exampleRemotesParse() throws {
        let text = try #require(readText(deployFolder + "/contactbox.example.toml"))
        let start = try #require(text.range(of: "\n#[[remote]]")).lowerBound
        // "#key = value" lines are the blocks; "# " lines stay comments.
        let uncommented = text[start...].split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && !line.hasPrefix("# ") && line != "#" ? String(line.dropFirst()) : String(line)
        }
        let configuration = try Configuration.parse(
            text: String(text[..<start]) + "\n" + uncommented.joined(separator: "\n"), path: configPath)
        #expect(
            configuration.remotes == [
                RemoteSettings(
                    name: "icloud",
                    kind: .carddav(
                        url: "https://contacts.icloud.com/", username: "someone@icloud.com",
                        password: .file("/etc/contactbox/icloud.password"), authScheme: .basic, caFile: nil,
                        caPath: nil, concurrency: 4),
                    conflictPolicy: .newest),
                RemoteSettings(name: "nas", kind: .vdir(folder: "/mnt/nas/contacts", createFolder: false)),
            ])
    }

    @Test("Optional settings take their documented defaults")
    func defaults() throws {
        let text = """
            [[remote]]
            name = "home"
            kind = "carddav"
            url = "https://dav.example.org/"
            username = "me"
            password_credential = "home"
            """
        let configuration = try Configuration.parse(text: text, path: configPath)
        #expect(configuration.storePath == Configuration.defaultStorePath)
        #expect(
            configuration.sync
                == SyncSettings(interval: .seconds(15 * 60), fullCheck: .seconds(24 * 3600), maxDeleteShare: 0.3))
        #expect(
            configuration.remotes.first
                == RemoteSettings(
                    name: "home",
                    kind: .carddav(
                        url: "https://dav.example.org/", username: "me", password: .credential("home"),
                        authScheme: .basic, caFile: nil, caPath: nil, concurrency: 4),
                    conflictPolicy: .newest))
    }

    @Test("Every CardDAV setting is read")
    func everyCardDAVSetting() throws {
        let text = makeText(
            replacing: "concurrency = 4",
            with: """
                concurrency = 16
                auth = "digest"
                ca_file = "/etc/contactbox/ca.pem"
                ca_path = "/etc/ssl/certs"
                """
        ).replacing("conflict = \"newest\"", with: "conflict = \"remote\"")
        let remote = try Configuration.parse(text: text, path: configPath).remotes[0]
        #expect(remote.conflictPolicy == .remote)
        #expect(
            remote.kind
                == .carddav(
                    url: "https://contacts.icloud.com/", username: "someone@icloud.com",
                    password: .file("/etc/contactbox/icloud.password"), authScheme: .digest,
                    caFile: "/etc/contactbox/ca.pem", caPath: "/etc/ssl/certs", concurrency: 16))
    }

    @Test("http:// is accepted to this box itself, or when explicitly allowed")
    func insecureHTTPWhereAllowed() throws {
        for url in ["http://localhost:5232/", "http://127.0.0.1/dav", "http://[::1]:8080/"] {
            let text = makeText(replacing: "url = \"https://contacts.icloud.com/\"", with: "url = \"\(url)\"")
            #expect(problems(text) == [], "\(url)")
        }
        let allowed = makeText(
            replacing: "url = \"https://contacts.icloud.com/\"",
            with: "url = \"http://nas.local/dav\"\nallow_insecure_http = true")
        #expect(problems(allowed) == [])
    }

    @Test("A file that cannot be read is reported with its path and no line")
    func missingFile() {
        let result = Configuration.validate(path: "/nonexistent/contactbox.toml")
        #expect(result.configuration == nil)
        #expect(
            result.errors.map(\.description) == ["/nonexistent/contactbox.toml: cannot read: No such file or directory"]
        )
    }

    @Test("load throws the first problem")
    func loadThrows() throws {
        let text = makeText(replacing: "concurrency = 4", with: "concurrency = 40")
        #expect(throws: ConfigurationError.self) { try Configuration.parse(text: text, path: configPath) }
    }
}

@Suite("The [history] section")
struct HistorySettingsTests {
    static let remote = """
        [[remote]]
        name = "home"
        kind = "vdir"
        folder = "/srv/contacts"
        """

    @Test("without it, 90 days and 50 versions a contact; the example file says the same")
    func defaults() throws {
        #expect(try Configuration.parse(text: Self.remote, path: configPath).history == HistorySettings())
        #expect(HistorySettings() == HistorySettings(maxAge: .seconds(90 * 86_400), maxVersions: 50))
        #expect(try Configuration.load(path: deployFolder + "/contactbox.example.toml").history == HistorySettings())
    }

    @Test("max_age and max_versions are read; 0 versions means no limit by count")
    func values() throws {
        let text = "[history]\nmax_age = \"30d\"\nmax_versions = 0\n" + Self.remote
        #expect(
            try Configuration.parse(text: text, path: configPath).history
                == HistorySettings(maxAge: .seconds(30 * 86_400), maxVersions: nil))
    }

    @Test("a wrong value or an unknown key is refused with its line")
    func refused() {
        let found = problems("[history]\nmax_age = 90\nmax_versions = -1\nkeep = true\n" + Self.remote)
        #expect(found.contains { $0.contains("max_age must be a duration") })
        #expect(found.contains { $0.contains("max_versions must be a whole number") })
        #expect(found.contains { $0.contains("keep") })
    }
}

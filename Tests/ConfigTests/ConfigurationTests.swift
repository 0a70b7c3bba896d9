import Testing

@testable import Config

@Suite("Reading a configuration")
struct ConfigurationTests {
    @Test("The shipped example file parses into what its comments say")
    func exampleFileParses() throws {
        let configuration = try Configuration.load(path: deployFolder + "/contactbox.example.toml")
        #expect(configuration.storePath == "/var/lib/contactbox/contacts.sqlite")
        #expect(
            configuration.sync
                == SyncSettings(interval: .seconds(900), fullCheck: .seconds(86_400), maxDeleteShare: 0.3))
        #expect(
            configuration.remotes == [
                RemoteConfiguration(
                    name: "icloud",
                    kind: .carddav(
                        url: "https://contacts.icloud.com/", username: "someone@icloud.com",
                        password: .file("/etc/contactbox/icloud.password"), authScheme: .basic, caFile: nil,
                        caPath: nil, concurrency: 4),
                    conflictPolicy: .newest),
                RemoteConfiguration(name: "nas", kind: .vdir(folder: "/mnt/nas/contacts", createFolder: false)),
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
                == RemoteConfiguration(
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

import Glibc
import SystemSupport
import TestSupport
import Testing

@testable import Config

/// `validText` with a section added after it: its header is on line 23, its first setting on line 24.
func makeText(appending section: String) -> String {
    validText + "\n\n" + section
}

@Suite("The [panel] and [status] sections")
struct PanelConfigurationTests {
    let file = configPath

    @Test("Without [panel] and [status], the panel is simulated and the page listens on 0.0.0.0:8080, open")
    func defaults() throws {
        let configuration = try Configuration.parse(text: validText, path: file)
        #expect(configuration.panel == PanelSettings(board: "simulated"))
        #expect(configuration.panel.isSimulated)
        #expect(configuration.status == StatusSettings(host: "0.0.0.0", port: 8080, password: nil))
        #expect(configuration.status.listen == "0.0.0.0:8080")
    }

    @Test("The shipped example names the Raspberry Pi 4 and the default status address")
    func exampleFile() throws {
        let configuration = try Configuration.load(path: deployFolder + "/contactbox.example.toml")
        #expect(configuration.panel.board == "raspberry-pi-4")
        #expect(!configuration.panel.isSimulated)
        #expect(configuration.status == StatusSettings())
    }

    @Test(
        "A board is a name in the boards folder or an absolute path",
        arguments: [
            "raspberry-pi-5", "simulated", "/etc/contactbox/my-board.toml",
        ])
    func boardNamesAndPaths(board: String) throws {
        let configuration = try Configuration.parse(
            text: makeText(appending: "[panel]\nboard = \"\(board)\""), path: file)
        #expect(configuration.panel.board == board)
        #expect(configuration.panel.boardPath(boardsDirectory: "/b").hasSuffix(".toml"))
    }

    @Test(
        "A board that is neither a name nor an absolute path is reported on its line",
        arguments: ["raspberry pi 4", "Board/raspberry-pi-4.toml", "../boards/x"])
    func badBoard(board: String) {
        #expect(
            problems(makeText(appending: "[panel]\nboard = \"\(board)\"")) == [
                "\(file):24: [panel] board must be a board name such as \"raspberry-pi-4\" (a file in the boards "
                    + "folder), \"simulated\", or an absolute path to a board file (found \"\(board)\")"
            ])
    }

    @Test("[panel] needs its board, knows no other key, and must be a table")
    func panelKeys() {
        #expect(
            problems(makeText(appending: "[panel]\nbord = \"raspberry-pi-4\"")) == [
                "\(file):23: [panel] board is missing",
                "\(file):24: [panel] unknown key bord (did you mean board?)",
            ])
        #expect(
            problems(makeText(appending: "[panel]\nboard = 4")) == [
                "\(file):24: [panel] board must be text in quotes (found 4)"
            ])
        #expect(
            problems("panel = \"raspberry-pi-4\"\n" + validText) == [
                "\(file):1: panel must be a table: write [panel] on a line of its own, its settings below"
            ])
    }

    @Test(
        "listen takes a host and a port",
        arguments: [
            ("0.0.0.0:8080", "0.0.0.0", 8080), ("[::1]:9000", "::1", 9000), ("localhost:80", "localhost", 80),
            ("[::]:8080", "::", 8080), ("192.168.1.20:65535", "192.168.1.20", 65_535),
        ])
    func listen(text: String, host: String, port: Int) throws {
        let configuration = try Configuration.parse(
            text: makeText(appending: "[status]\nlisten = \"\(text)\""), path: file)
        #expect(configuration.status.host == host)
        #expect(configuration.status.port == port)
        #expect(configuration.status.listen == text)
    }

    @Test(
        "A listen address without a usable port or host is reported on its line",
        arguments: [
            ("0.0.0.0:0", "the port must be a number from 1 to 65535"),
            ("0.0.0.0:70000", "the port must be a number from 1 to 65535"),
            ("localhost:", "the port must be a number from 1 to 65535"),
            ("0.0.0.0:80x", "the port must be a number from 1 to 65535"),
            ("0.0.0.0", "must be an address and a port"),
            (":8080", "must be an address and a port"),
            ("[::1]", "must be an address and a port"),
            ("::1:8080", "write an IPv6 address in brackets, such as \"[::]:8080\""),
            ("[box]:80", "[box] is not an IPv6 address"),
            ("my box:80", "the address must be a host name, an IPv4 address or an IPv6 address in brackets"),
        ])
    func badListen(text: String, problem: String) throws {
        let errors = Configuration.validate(
            text: makeText(appending: "[status]\nlisten = \"\(text)\""), path: file
        ).errors
        #expect(errors.count == 1, "\(errors)")
        let error = try #require(errors.first)
        #expect(error.line == 24)
        #expect(error.key == "listen")
        #expect(error.message.hasPrefix("[status] listen"), "\(error)")
        #expect(error.message.contains(problem), "\(error)")
        #expect(error.message.hasSuffix("(found \"\(text)\")"), "\(error)")
    }

    @Test("The status password is read from a file only its owner may read")
    func statusPasswordFile() throws {
        let directory = try TemporaryDirectory()
        let password = directory.file("status.password")
        makeFile(password, "status-secret\n")
        let text = makeText(appending: "[status]\nlisten = \"127.0.0.1:8080\"\npassword_file = \"\(password)\"")
        let configuration = try Configuration.parse(text: text, path: file)
        #expect(configuration.status.password == .file(password))
        #expect(try configuration.status.password?.read() == "status-secret")
        let statusProblems = configuration.resourceProblems(path: file).filter { $0.message.hasPrefix("[status]") }
        #expect(statusProblems.isEmpty, "\(statusProblems)")

        makeFile(password, "status-secret\n", mode: 0o644)
        let open = configuration.resourceProblems(path: file).filter { $0.message.hasPrefix("[status]") }
        #expect(open.count == 1)
        #expect(open.first?.key == "password_file")
        #expect(open.first?.description.contains("chmod 600 \(password)") == true, "\(open)")
        #expect(open.first?.description.contains("status-secret") == false)
    }

    @Test("The status password follows the remotes' rules")
    func statusPasswordRules() throws {
        let credential = try Configuration.parse(
            text: makeText(appending: "[status]\npassword_credential = \"status\""), path: file)
        #expect(credential.status.password == .credential("status"))
        #expect(
            problems(makeText(appending: "[status]\npassword_file = \"status.password\"")) == [
                "\(file):24: [status] password_file must be an absolute path, starting with / (found "
                    + "\"status.password\")"
            ])
        #expect(
            problems(makeText(appending: "[status]\npassword_file = \"/a\"\npassword_credential = \"status\"")) == [
                "\(file):25: [status] give either password_file or password_credential, not both"
            ])
        let inline = problems(makeText(appending: "[status]\npassword = \"hunter2\""))
        #expect(inline.count == 1)
        #expect(inline.first?.hasPrefix("\(file):24: [status] a password does not belong in the configuration") == true)
        #expect(inline.allSatisfy { !$0.contains("hunter2") })
    }

    @Test("allowed_hosts: names and addresses the page also answers to, kept as written")
    func allowedHosts() throws {
        let configuration = try Configuration.parse(
            text: makeText(
                appending:
                    "[status]\nallowed_hosts = [\"Contacts.Example.org.\", \"192.168.1.1\", \"[fd00::1]\", \"fd00::2\"]"
            ), path: file)
        #expect(configuration.status.allowedHosts == ["Contacts.Example.org.", "192.168.1.1", "[fd00::1]", "fd00::2"])
        #expect(try Configuration.parse(text: validText, path: file).status.allowedHosts.isEmpty)
    }

    @Test(
        "allowed_hosts of the wrong type, or an entry that is no host, is refused with a clear message",
        arguments: [
            (
                "\"box.example.org\"",
                "allowed_hosts must be a list of host names in quotes, such as "
                    + "[\"contacts.example.org\"] (found \"box.example.org\")"
            ),
            (
                "[1, 2]",
                "allowed_hosts must be a list of host names in quotes, such as [\"contacts.example.org\"] "
                    + "(found a list)"
            ),
            ("[\"\"]", "allowed_hosts: an entry is empty"),
            (
                "[\"box:8080\"]",
                "allowed_hosts: write the host without a port: the port is not compared (found \"box:8080\")"
            ),
            ("[\"[::1]:8080\"]", "allowed_hosts: write the host without a port"),
            ("[\"http://box\"]", "allowed_hosts: write host names only, without a scheme or path"),
            ("[\"*.example.org\"]", "allowed_hosts: wildcards are not supported: list each name"),
            ("[\"my box\"]", "allowed_hosts: not a host name or an IP address"),
            ("[\"box..example\"]", "allowed_hosts: not a host name or an IP address"),
        ])
    func badAllowedHosts(value: String, problem: String) {
        let found = problems(makeText(appending: "[status]\nallowed_hosts = \(value)"))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("\(file):24: [status] \(problem)") == true, "\(found)")
    }

    @Test("check-config reads the board file: a missing board is named with the boards there are")
    func boardResourceProblems() throws {
        let unknown = try Configuration.parse(
            text: makeText(appending: "[panel]\nboard = \"raspbery-pi-4\""), path: file)
        let missing = unknown.resourceProblems(path: file, boardsDirectory: boardFolder).filter {
            $0.file.hasPrefix(boardFolder)
        }
        #expect(missing.count == 1)
        #expect(
            missing.first?.description.hasPrefix(
                "\(boardFolder)/raspbery-pi-4.toml: board file not found (boards are in ")
                == true)
        #expect(missing.first?.description.hasSuffix("did you mean raspberry-pi-4?)") == true, "\(missing)")

        let known = try Configuration.parse(
            text: makeText(appending: "[panel]\nboard = \"raspberry-pi-4\""), path: file)
        #expect(
            known.resourceProblems(path: file, boardsDirectory: boardFolder).allSatisfy { !$0.file.contains("Board") })

        let directory = try TemporaryDirectory()
        let board = directory.file("mine.toml")
        makeFile(board, makeBoardText(replacing: "bias = \"pull-up\"", with: "bias = \"up\""), mode: 0o644)
        let mine = try Configuration.parse(text: makeText(appending: "[panel]\nboard = \"\(board)\""), path: file)
        let found = mine.resourceProblems(path: file, boardsDirectory: boardFolder).filter { $0.file == board }
        #expect(
            found.map(\.description) == [
                "\(board):17: [button.sync] bias must be one of as-is, disabled, pull-up, pull-down (found \"up\")"
            ])
    }
}

@Suite("The status page over HTTPS: [status] https_listen, tls_certificate, tls_key")
struct HTTPSConfigurationTests {
    let file = configPath

    @Test("the three keys together: the address and the two files")
    func parsed() throws {
        let configuration = try Configuration.parse(
            text: makeText(
                appending: """
                    [status]
                    https_listen = "[::]:8443"
                    tls_certificate = "/etc/contactbox/status.crt"
                    tls_key = "/etc/contactbox/status.key"
                    """), path: file)
        #expect(
            configuration.status.https
                == HTTPSSettings(
                    host: "::", port: 8443, certificatePath: "/etc/contactbox/status.crt",
                    keyPath: "/etc/contactbox/status.key"))
        #expect(try Configuration.parse(text: validText, path: file).status.https == nil)
    }

    @Test("one without the others, a relative path or a bad address: refused, saying what to add or change")
    func refused() {
        #expect(
            problems(makeText(appending: "[status]\nhttps_listen = \"0.0.0.0:8443\"")).first?.hasSuffix(
                "https_listen, tls_certificate and tls_key go together: add tls_certificate and tls_key") == true)
        let relative = problems(
            makeText(
                appending: """
                    [status]
                    https_listen = "0.0.0.0:8443"
                    tls_certificate = "status.crt"
                    tls_key = "/etc/contactbox/status.key"
                    """))
        #expect(relative.first?.hasSuffix("tls_certificate must be an absolute path (found \"status.crt\")") == true)
        let address = problems(
            makeText(
                appending: """
                    [status]
                    https_listen = "8443"
                    tls_certificate = "/a.crt"
                    tls_key = "/a.key"
                    """))
        #expect(address.first?.contains("https_listen must be an address and a port") == true)
    }

    @Test("the files: read as PEM; a key others may read is refused without its text in the message")
    func files() throws {
        let folder = try TemporaryDirectory()
        let certificates = try TestCertificates.shared()
        let certificate = folder.file("status.crt")
        let key = folder.file("status.key")
        let keyText = try SmallFile.read(certificates.server.key, limit: 65_536)
        try SmallFile.replace(
            certificate, with: try SmallFile.read(certificates.server.certificate, limit: 65_536), mode: 0o644)
        try SmallFile.replace(key, with: keyText, mode: 0o600)
        let https = HTTPSSettings(host: "0.0.0.0", port: 8443, certificatePath: certificate, keyPath: key)
        let pair = try https.read()
        #expect(Array(pair.key.utf8) == keyText)
        chmod(key, 0o644)
        #expect(throws: ConfigurationError.self) { try https.read() }
        do {
            _ = try https.read()
        } catch {
            #expect(error.description.contains("other users may read this key (mode 644)"))
            #expect(!error.description.contains("PRIVATE KEY"))
        }
        try SmallFile.replace(certificate, with: Array("not a certificate".utf8), mode: 0o644)
        chmod(key, 0o600)
        #expect(throws: ConfigurationError.self) { try https.read() }
    }
}

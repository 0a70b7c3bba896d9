import Testing

@testable import Config

@Suite("Configuration errors name file, line and key")
struct ConfigurationValidationTests {
    let file = configPath

    @Test("A conflict policy that does not exist is reported on its line")
    func unknownConflictPolicy() {
        let text = makeText(replacing: "conflict = \"newest\"", with: "conflict = \"oldest\"")
        #expect(
            problems(text) == [
                "\(file):14: remote \"icloud\": conflict must be one of newest, local, remote (found \"oldest\")"
            ])
        let error = Configuration.validate(text: text, path: file).errors.first
        #expect(error?.key == "conflict")
        #expect(error?.line == 14)
    }

    @Test("A syntax error carries TOMLKit's line")
    func syntaxError() {
        let text = makeText(replacing: "full_check = \"24h\"", with: "full_check = \"24h")
        let errors = problems(text)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("\(file):5: ") == true, "\(errors)")
    }

    @Test("A misspelt key is an error that suggests the right one")
    func typoInKey() {
        let text = makeText(
            replacing: "password_file = \"/etc/contactbox/icloud.password\"",
            with: "pasword_file = \"/etc/contactbox/icloud.password\"")
        #expect(
            problems(text) == [
                "\(file):8: remote \"icloud\": password_file is missing (or password_credential, under systemd)",
                "\(file):13: remote \"icloud\": unknown key pasword_file (did you mean password_file?)",
            ])
    }

    @Test("Unknown keys are caught at the top level and in [sync] too")
    func unknownKeysEverywhere() {
        let text = makeText(replacing: "interval = \"15m\"", with: "intervall = \"15m\"")
            .replacing("store = ", with: "colour = ")
        #expect(
            problems(text) == [
                "\(file):1: unknown key colour",
                "\(file):4: [sync] unknown key intervall (did you mean interval?)",
            ])
    }

    @Test("A key of the other kind of remote is refused")
    func keyOfOtherKind() {
        let text = makeText(replacing: "create_folder = false", with: "create_folder = false\nconcurrency = 2")
        #expect(problems(text) == ["\(file):22: remote \"nas\": concurrency is only for kind = \"carddav\""])
    }

    @Test("Two remotes with one name are refused at the second")
    func duplicateNames() {
        let text = makeText(replacing: "name = \"nas\"", with: "name = \"icloud\"")
        #expect(
            problems(text) == [
                "\(file):18: remote \"icloud\": another remote has this name (line 9); each needs its own"
            ])
    }

    @Test(
        "Missing required keys are reported at their block's header",
        arguments: [
            ("url = \"https://contacts.icloud.com/\"", "\(configPath):8: remote \"icloud\": url is missing"),
            ("username = \"someone@icloud.com\"", "\(configPath):8: remote \"icloud\": username is missing"),
            ("folder = \"/mnt/nas/contacts\"", "\(configPath):17: remote \"nas\": folder is missing"),
            (
                "kind = \"vdir\"",
                "\(configPath):17: remote \"nas\": kind is missing: write kind = \"carddav\" or \"vdir\""
            ),
        ])
    func missingRequiredKey(line: String, expected: String) {
        let errors = problems(makeText(replacing: line, with: ""))
        #expect(errors.contains(expected), "\(errors)")
    }

    @Test("A remote without a name is reported by its position")
    func missingName() {
        let errors = problems(makeText(replacing: "name = \"nas\"", with: ""))
        #expect(errors == ["\(file):17: remote #2: name is missing"])
    }

    @Test("An unknown kind is reported on its line")
    func unknownKind() {
        let errors = problems(makeText(replacing: "kind = \"vdir\"", with: "kind = \"webdav\""))
        #expect(errors == ["\(file):19: remote \"nas\": kind must be one of carddav, vdir (found \"webdav\")"])
    }

    @Test(
        "Only http and https URLs are accepted, and http only to this box",
        arguments: [
            ("ftp://contacts.example.org/", "url must start with https:// (found \"ftp://contacts.example.org/\")"),
            ("contacts.example.org", "url must start with https:// (found \"contacts.example.org\")"),
            ("https:///dav", "url has no host name (found \"https:///dav\")"),
            (
                "http://contacts.example.org/",
                "url must use https://: http:// would send the password unencrypted "
                    + "(to allow it on a trusted network, add allow_insecure_http = true)"
            ),
        ])
    func urlScheme(url: String, message: String) {
        let text = makeText(replacing: "url = \"https://contacts.icloud.com/\"", with: "url = \"\(url)\"")
        #expect(problems(text) == ["\(configPath):11: remote \"icloud\": " + message])
    }

    @Test("A URL with a password in it is refused without being quoted")
    func urlWithCredentials() {
        let text = makeText(
            replacing: "url = \"https://contacts.icloud.com/\"", with: "url = \"https://me:hunter2@dav.example.org/\"")
        let errors = problems(text)
        #expect(
            errors == [
                "\(file):11: remote \"icloud\": url must not hold a user name or password: use username and password_file"
            ])
        #expect(!errors.joined().contains("hunter2"))
    }

    @Test("Concurrency must be from 1 to 16", arguments: ["0", "17", "-1", "\"4\"", "2.5"])
    func concurrencyOutOfRange(value: String) {
        let errors = problems(makeText(replacing: "concurrency = 4", with: "concurrency = \(value)"))
        #expect(errors.count == 1)
        #expect(
            errors.first?.hasPrefix(
                "\(file):15: remote \"icloud\": concurrency must be a whole number from 1 to 16 (found ")
                == true, "\(errors)")
    }

    @Test("Concurrency at the ends of its range is accepted", arguments: [1, 16])
    func concurrencyInRange(value: Int) throws {
        let text = makeText(replacing: "concurrency = 4", with: "concurrency = \(value)")
        guard
            case .carddav(let card) = try Configuration.parse(text: text, path: file).remotes[0].kind
        else {
            Issue.record("not a CardDAV remote")
            return
        }
        #expect(card.concurrency == value)
    }

    @Test("The deletion share must be above 0 and at most 1", arguments: ["0", "0.0", "1.5", "-0.2", "\"30%\""])
    func deleteShareOutOfRange(value: String) {
        let errors = problems(makeText(replacing: "max_delete_share = 0.3", with: "max_delete_share = \(value)"))
        #expect(errors.count == 1)
        #expect(
            errors.first?.hasPrefix("\(file):6: [sync] max_delete_share must be a number above 0 and at most 1")
                == true, "\(errors)")
    }

    @Test("A deletion share of exactly 1, written as an integer, is accepted")
    func deleteShareOfOne() throws {
        let text = makeText(replacing: "max_delete_share = 0.3", with: "max_delete_share = 1")
        #expect(try Configuration.parse(text: text, path: file).sync.maxDeleteShare == 1)
    }

    @Test("A duration that does not parse says how to write one")
    func badDuration() {
        let errors = problems(makeText(replacing: "interval = \"15m\"", with: "interval = \"15 minutes\""))
        #expect(
            errors == [
                "\(file):4: [sync] interval: \"15 minutes\" is not a duration; write a number and a unit, such as "
                    + "\"30s\", \"15m\", \"1h\", \"1d\" or \"1h30m\""
            ])
        let number = problems(makeText(replacing: "full_check = \"24h\"", with: "full_check = 86400"))
        #expect(number == ["\(file):5: [sync] full_check must be a duration in quotes, such as \"15m\" (found 86400)"])
    }

    @Test("Relative paths are refused")
    func relativePaths() {
        let errors = problems(makeText(replacing: "folder = \"/mnt/nas/contacts\"", with: "folder = \"contacts\""))
        #expect(
            errors == [
                "\(file):20: remote \"nas\": folder must be an absolute path, starting with / (found \"contacts\")"
            ])
    }

    @Test("Values of the wrong type are reported with their line")
    func wrongTypes() {
        let errors = problems(makeText(replacing: "create_folder = false", with: "create_folder = \"no\""))
        #expect(
            errors == [
                "\(file):21: remote \"nas\": create_folder must be true or false, without quotes (found \"no\")"
            ])
    }

    @Test("Both password_file and password_credential is one too many")
    func bothPasswordSources() {
        let text = makeText(
            replacing: "conflict = \"newest\"", with: "conflict = \"newest\"\npassword_credential = \"icloud\"")
        #expect(
            problems(text) == [
                "\(file):15: remote \"icloud\": give either password_file or password_credential, not both"
            ])
    }

    @Test("A single [remote] table is refused")
    func remoteShape() {
        let single = "[remote]\nname = \"x\"\n"
        #expect(problems(single) == ["\(file):1: remote must be written as [[remote]] blocks, one per address book"])
    }

    @Test("A configuration without any [[remote]] is valid: a box not set up yet")
    func noRemoteIsValid() throws {
        #expect(problems("store = \"/tmp/x.sqlite\"\n").isEmpty)
        #expect(problems("").isEmpty)
        let configuration = try Configuration.parse(text: "[sync]\ninterval = \"1h\"\n", path: file)
        #expect(configuration.remotes.isEmpty)
        #expect(configuration.sync.interval == .seconds(3600))
    }

    @Test("Every problem is listed, in the order of their lines")
    func everyProblemListed() {
        let text =
            validText
            .replacing("interval = \"15m\"", with: "interval = \"soon\"")
            .replacing("conflict = \"newest\"", with: "conflict = \"oldest\"")
            .replacing("create_folder = false", with: "create_folder = 1")
        #expect(
            problems(text).map { $0.split(separator: ":").dropFirst().first.map(String.init) } == ["4", "14", "21"])
    }

    @Test("Lines are found under dotted keys and after multi-line strings")
    func lineScan() {
        let text = """
            sync.interval = "15m"
            sync.full_check = "never"

            [[remote]]
            name = "x"
            kind = "vdir"
            folder = \"\"\"
            /mnt/x
            conflict = "not this line"
            \"\"\"
            conflict = "oldest"
            """
        #expect(
            problems(text) == [
                "\(file):2: [sync] full_check: \"never\" is not a duration; write a number and a unit, such as "
                    + "\"30s\", \"15m\", \"1h\", \"1d\" or \"1h30m\"",
                "\(file):11: remote \"x\": conflict must be one of newest, local, remote (found \"oldest\")",
            ])
    }
}

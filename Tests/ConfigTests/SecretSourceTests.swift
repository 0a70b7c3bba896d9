import Glibc
import TestSupport
import Testing

@testable import Config

@Suite("Passwords are read from files and credentials, and never shown")
struct SecretSourceTests {
    let secret = "hunter2-correct-horse"

    @Test("A password file readable only by its owner is read without its trailing newline")
    func readsPasswordFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("icloud.password")
        makeFile(path, secret + "\n")
        #expect(try SecretSource.file(path).read() == secret)
        makeFile(path, secret + "\r\n")
        #expect(try SecretSource.file(path).read() == secret)
        makeFile(path, secret)
        #expect(try SecretSource.file(path).read() == secret)
    }

    @Test("One trailing newline is trimmed; a file of several lines is refused, not sent whole")
    func oneLineOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("password")
        makeFile(path, " spaced \n")
        #expect(try SecretSource.file(path).read() == " spaced ")
        for text in [" spaced \n\n", secret + "\nsecond line\n", secret + "\rold mac"] {
            makeFile(path, text)
            let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(path).read() }
            #expect(error?.description.contains("more than one line") == true)
            #expect(error?.description.contains(secret) == false)
        }
    }

    @Test("A FIFO, a directory or a device as the password file is refused at once, never waited on")
    func refusesWhatIsNoFile() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("fifo.password")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, directory.path, "/dev/zero"] {
            let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(path).read() }
            #expect(error?.description.contains("not a regular file") == true, "\(String(describing: error))")
        }
    }

    @Test("A readable file of another user is refused without advice to chmod it")
    func refusesSomeoneElsesFile() throws {
        // As root: a file given to nobody; as anyone else: /etc/passwd, root's, mode 644.
        let directory = try TemporaryDirectory()
        var path = "/etc/passwd"
        if geteuid() == 0 {
            path = directory.file("someone-elses")
            makeFile(path, secret + "\n", mode: 0o644)
            #expect(chown(path, 65534, 65534) == 0)
        }
        let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(path).read() }
        #expect(error?.description.contains("belongs to another user") == true, "\(String(describing: error))")
        #expect(error?.description.contains("chmod") == false)
    }

    @Test("A file of ours shared with another group, or linked from elsewhere, is refused without advice to chmod it")
    func refusesSharedFile() throws {
        let directory = try TemporaryDirectory()
        // /etc/shadow as root sees it: root's, group shadow, mode 640.
        let shared = directory.file("shadow-like")
        makeFile(shared, secret + "\n", mode: 0o640)
        var paths: [String] = []
        if geteuid() == 0 {
            // Only root may give a file of its own to a group it is not in.
            #expect(chown(shared, 0, getegid() == 42 ? 43 : 42) == 0)
            paths.append(shared)
            if access("/etc/shadow", F_OK) == 0 { paths.append("/etc/shadow") }
        }
        let linked = directory.file("linked")
        makeFile(linked, secret + "\n", mode: 0o644)
        #expect(link(linked, directory.file("second-name")) == 0)
        paths.append(linked)
        for path in paths {
            let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(path).read() }
            #expect(error?.description.contains("not a password file of ContactBox's own") == true, "\(path)")
            #expect(error?.description.contains("chmod") == false, "\(String(describing: error))")
        }
    }

    @Test(
        "A password file that others may read is refused with the chmod that fixes it",
        arguments: [0o640, 0o604, 0o620])
    func refusesOpenPasswordFile(mode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("icloud.password")
        makeFile(path, secret + "\n", mode: mode_t(mode))
        let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(path).read() }
        #expect(error?.description.contains("chmod 600 \(path)") == true, "\(String(describing: error))")
        #expect(error?.description.contains(secret) == false)
        #expect(error?.file == path)
    }

    @Test("A missing or empty password file is an error that names it")
    func missingOrEmptyPasswordFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("missing")
        let error = #expect(throws: ConfigurationError.self) { try SecretSource.file(missing).read() }
        #expect(error?.description == "\(missing): cannot read: No such file or directory")
        let empty = directory.file("empty")
        makeFile(empty, "\n")
        let emptyError = #expect(throws: ConfigurationError.self) { try SecretSource.file(empty).read() }
        #expect(emptyError?.description == "\(empty): the password is empty")
    }

    @Test("A password written into the configuration is refused, and not repeated")
    func inlinePasswordRefused() {
        let text = makeText(
            replacing: "password_file = \"/etc/contactbox/icloud.password\"", with: "password = \"\(secret)\"")
        let errors = Configuration.validate(text: text, path: configPath).errors
        #expect(
            errors.map(\.description).contains(
                "\(configPath):13: remote \"icloud\": a password does not belong in the configuration file, which other "
                    + "users can read: put it in a file only contactbox can read (chmod 600) and name that file with "
                    + "password_file"))
        #expect(errors.allSatisfy { !$0.description.contains(secret) && !$0.message.contains(secret) })
    }

    @Test(
        "Syntax errors around a password do not echo it",
        arguments: [
            "password = \"hunter2-correct-horse", "password = hunter2-correct-horse",
            "password = \"hunter2-correct-horse\\q\"",
            "password_file = \"hunter2-correct-horse", "hunter2-correct-horse",
        ])
    func syntaxErrorsDoNotEchoSecrets(line: String) {
        let text = makeText(replacing: "password_file = \"/etc/contactbox/icloud.password\"", with: line)
        let errors = problems(text)
        #expect(!errors.isEmpty)
        #expect(errors.allSatisfy { !$0.contains(secret) }, "\(errors)")
    }

    @Test("Descriptions of the configuration types name where a password is, never what it is")
    func descriptionsHoldNoSecret() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("icloud.password")
        makeFile(path, secret + "\n")
        let text = makeText(replacing: "/etc/contactbox/icloud.password", with: path)
        let configuration = try Configuration.parse(text: text, path: configPath)
        #expect(configuration.resourceProblems(path: configPath).filter { $0.key != "folder" } == [])
        for description in [
            String(describing: configuration), String(reflecting: configuration),
            String(describing: configuration.remotes), String(describing: SecretSource.file(path)),
        ] {
            #expect(!description.contains(secret))
        }
        #expect(SecretSource.file(path).description == "password file \(path)")
    }
}

/// `CREDENTIALS_DIRECTORY` and `CONTACTBOX_CONFIG` are process-wide: these tests take turns.
@Suite("Credentials and the configuration path from the environment", .serialized)
struct EnvironmentTests {
    @Test("A credential is read from $CREDENTIALS_DIRECTORY")
    func readsCredential() throws {
        let directory = try TemporaryDirectory()
        makeFile(directory.file("icloud"), "from-systemd\n", mode: 0o400)
        setenv("CREDENTIALS_DIRECTORY", directory.path, 1)
        defer { unsetenv("CREDENTIALS_DIRECTORY") }
        #expect(try SecretSource.credential("icloud").read() == "from-systemd")
        let missing = #expect(throws: ConfigurationError.self) { try SecretSource.credential("google").read() }
        #expect(missing?.description == "\(directory.path)/google: cannot read: No such file or directory")
    }

    @Test("Without $CREDENTIALS_DIRECTORY a credential explains that it needs systemd")
    func credentialWithoutSystemd() {
        unsetenv("CREDENTIALS_DIRECTORY")
        let error = #expect(throws: ConfigurationError.self) { try SecretSource.credential("icloud").read() }
        #expect(error?.message.contains("CREDENTIALS_DIRECTORY is not set") == true)
        #expect(error?.message.contains("LoadCredential=icloud:") == true)
    }

    @Test("--config wins over $CONTACTBOX_CONFIG, which wins over the installed path")
    func configurationPath() {
        unsetenv("CONTACTBOX_CONFIG")
        #expect(Configuration.path(explicit: nil) == "/etc/contactbox/contactbox.toml")
        setenv("CONTACTBOX_CONFIG", "/tmp/from-env.toml", 1)
        defer { unsetenv("CONTACTBOX_CONFIG") }
        #expect(Configuration.path(explicit: nil) == "/tmp/from-env.toml")
        #expect(Configuration.path(explicit: "/tmp/flag.toml") == "/tmp/flag.toml")
    }
}

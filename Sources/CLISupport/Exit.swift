import ArgumentParser

/// The version both executables report (with their build id).
public let contactboxVersion = "0.1.0"

/// Exit codes from sysexits(3), which scripts and systemd already know.
public enum Exit {
    public static let findings = ExitCode(1)
    /// Deletions held: they wait for a person. Not an error, not done either.
    public static let deletionsHeld = ExitCode(10)
    public static let dataError = ExitCode(65)
    public static let noInput = ExitCode(66)
    /// A remote could not be reached: no route, refused, unknown host, TLS failure, a folder or stick missing.
    public static let unavailable = ExitCode(69)
    /// The system refused what the daemon needs to start (an eventfd, a signalfd, a thread).
    public static let osError = ExitCode(71)
    public static let cannotCreate = ExitCode(73)
    public static let ioError = ExitCode(74)
    /// A remote is busy or too slow: try again later.
    public static let temporaryFailure = ExitCode(75)
    /// A remote answered something that is no CardDAV answer, or one we refuse (a redirect elsewhere).
    public static let protocolError = ExitCode(76)
    public static let noPermission = ExitCode(77)
    /// The configuration is wrong, a URL in it or given to `discover` among it (no address book there).
    public static let configError = ExitCode(78)

    /// What each code means wherever it is used, as the exit-code table of Docs/commands.md says it in short; a
    /// command gives a code a narrower meaning in ``commands``.
    static let meanings: [Int32: String] = [
        0: "done",
        1: "something asked for was not found, or some items failed (listed)",
        10: "deletions are held until confirmed (`contactbox sync --confirm-deletions`, or a long press of the button)",
        64: "bad usage",
        65: "some input cards were skipped (the others were imported)",
        66: "an input file is missing or unreadable",
        69: "a remote could not be reached (no network, connection refused, unknown host, a TLS failure, "
            + "a folder or USB stick missing)",
        71: "the daemon could not start",
        73: "an output file could not be written",
        74: "the store could not be read or written",
        75: "a remote is busy or too slow (try again later)",
        76: "a remote gave an answer that is no CardDAV answer (an HTML page, plain text, a broken multistatus), "
            + "or redirected elsewhere",
        77: "a remote refused the login",
        78: "the configuration is wrong (`contactbox check-config` lists why), or a URL is no address book",
    ]

    /// Every command's exit codes, in the one place both `--help` and the code read them: a code with no text of
    /// its own means what ``meanings`` says.
    static let commands: [String: [(code: Int32, text: String?)]] = [
        "import": [(0, nil), (64, nil), (65, nil), (66, nil), (74, nil), (78, nil)],
        "export": [(0, nil), (64, nil), (73, nil), (74, nil), (78, nil)],
        "list": [(0, nil), (1, "--search found no contact"), (64, nil), (74, nil), (78, nil)],
        "show": [(0, nil), (1, "no contact with that UID"), (64, nil), (74, nil), (78, nil)],
        "check": [(0, "the store is healthy"), (1, "the check found problems"), (64, nil), (74, nil), (78, nil)],
        "edit": [
            (0, "saved, or nothing changed"), (1, "no contact with that UID, or the editor failed"), (64, nil),
            (65, "the edited card cannot be read or has another UID (nothing saved, the file kept)"),
            (66, "the edited file cannot be read"), (73, "the file to edit cannot be written"), (74, nil), (78, nil),
        ],
        "delete": [
            (0, nil), (1, "no contact with one of the UIDs (the others are deleted)"), (64, nil), (74, nil), (78, nil),
        ],
        "history": [(0, nil), (1, "no history for that UID"), (64, nil), (74, nil), (78, nil)],
        "runs": [(0, nil), (64, nil), (74, nil), (78, nil)],
        "restore": [(0, nil), (1, "no such contact or version"), (64, nil), (74, nil), (78, nil)],
        "undo": [
            (0, nil), (1, "no such finished run, or contacts changed since the run were skipped"), (64, nil),
            (74, nil), (78, nil),
        ],
        "prune-history": [(0, nil), (64, nil), (74, nil), (78, nil)],
        "copy": [
            (0, "copied, or nothing changed since the newest copy"), (1, "the store is damaged"), (64, nil),
            (74, nil), (78, nil),
        ],
        "recover": [
            (0, "the copy is in place, or the store is healthy (nothing done)"), (1, "no good safety copy"),
            (64, nil), (74, nil), (75, "the box is running: stop it first"), (78, nil),
        ],
        "check-config": [
            (0, "the configuration is valid"),
            (1, "the settings file has problems (listed): the box starts without what they spoil"), (64, nil),
            (78, "the configuration has problems (listed)"),
        ],
        "sync": [
            (0, "every remote synced"),
            (1, "some contacts could not be synced, or a server refused or damaged a card (listed)"),
            (10, nil), (64, nil), (69, nil), (74, nil), (75, nil), (76, nil), (77, nil),
            (
                78,
                "the configuration is wrong, no address book is set up yet, or a remote's URL is no address book "
                    + "(the message names those found)"
            ),
        ],
        "discover": [
            (0, "the address books are listed"), (1, "the account has no address book"), (64, nil), (69, nil),
            (75, nil), (76, nil),
            (77, "the server refused the login (401), or refused access to that account (403)"),
            (78, "the configuration is wrong, or nothing is at the URL (404) or it is no address book"),
        ],
        "remote": [
            (0, "done (added, listed, removed, or nothing chosen)"),
            (64, "bad usage, a password with a line break, or a folder path that is not absolute"),
            (69, "the server cannot be reached, its certificate was refused, or the folder is missing or not writable"),
            (73, "the settings or the password could not be written (the old settings stay)"),
            (75, "the server is busy or too slow, or the settings changed meanwhile (nothing saved: try again)"),
            (76, "the address is not a CardDAV server or address book"),
            (77, "the server refused the login (make a new app password), or access to that account"),
            (
                78,
                "the configuration is wrong, nothing is at the address or the account has no address book, a name "
                    + "the administrator's file uses, no such remote, or the remote limit"
            ),
        ],
        "run": [(0, "stopped by a signal"), (64, nil), (71, nil), (78, nil)],
        "pair": [(0, nil), (64, nil), (73, "the pairing files cannot be written in the store's folder"), (78, nil)],
        "token": [
            (0, nil), (1, "`token revoke` found no token with that name"),
            (64, "bad usage, or a name that is not 1 to 32 letters, digits, dots, dashes or underscores"),
            (73, "the tokens file in the store's folder cannot be read or written"),
            (78, "the configuration is wrong, a token has that name already, or there are 32 tokens already"),
        ],
    ]

    /// The codes `command` exits with (`"sync"`): nil for a command not in ``commands``.
    public static func codes(of command: String) -> [Int32]? {
        commands[command]?.map(\.code)
    }

    /// The last paragraph of a command's `--help`: "Exit codes: 0 done; 64 bad usage; ...".
    public static func help(_ command: String) -> String {
        let codes = commands[command] ?? meanings.keys.sorted().map { ($0, nil) }
        return "Exit codes: "
            + codes.map { "\($0.code) \($0.text ?? meanings[$0.code] ?? "")" }.joined(separator: "; ") + "."
    }

    /// Every code, for the help of `contactbox` itself.
    public static var summary: String { help("") }
}

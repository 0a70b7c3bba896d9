import ArgumentParser

/// The version both executables report (with their build id).
public let contactboxVersion = "0.1.0"

/// Exit codes from sysexits(3), which scripts and systemd already know.
public enum Exit {
    public static let findings = ExitCode(1)
    /// Deletions wait for a person: not an error, not done either.
    public static let needsConfirmation = ExitCode(10)
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
    public static let configError = ExitCode(78)

    /// Every code, for the help texts.
    public static let summary = """
        Exit codes: 0 done; 1 check found problems, a contact, version or run was not found, an undo skipped \
        contacts changed since, or some contacts could not be synced; 10 deletions are held until confirmed (sync --confirm-deletions); 64 bad usage; 65 some input \
        cards were skipped (the rest were imported), or an edited card was refused; 66 an input file is missing or unreadable; 69 a remote could not be reached; 71 the daemon could not \
        start; 73 an output file could not be written; 74 the store could not be read or written; 75 a remote \
        is busy or too slow (try again later); 76 a remote gave an answer that is no CardDAV answer, or \
        redirected elsewhere; 77 a remote refused the login; 78 the configuration is wrong.
        """
}

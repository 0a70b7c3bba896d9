import CLISupport
import Glibc

/// The terminal's settings while the password prompt hides what is typed, for the SIGINT handler, which can reach
/// only globals. Set and cleared by the main thread alone, around the one read.
nonisolated(unsafe) private var hiddenTerminal: termios?

/// The password for `remote add`: typed at a prompt that does not echo it when standard input is a terminal, else
/// read from standard input (`printf '%s\n' "$PW" | contactbox remote add ...`). Never an argument, which every user
/// of the box can read in `ps`.
enum PasswordInput {
    /// The most a password file may hold (`SecretSource`'s limit) and one byte more, to tell a longer input.
    static let limit = 4096

    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// The password's bytes without the line's end; nil when the input ends before anything is read.
    static func read(prompt: String) -> [UInt8]? {
        guard standardInputIsTerminal else { return line(from: STDIN_FILENO, untilEnd: true) }
        Terminal.write(prompt)
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            // Ctrl-C at the prompt must not leave the terminal without echo: the handler puts it back and exits as
            // the signal would have.
            hiddenTerminal = saved
            signal(SIGINT) { _ in
                if var saved = hiddenTerminal { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
                _exit(130)
            }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            // ECHONL keeps the line break the person types, so the next message starts on a line of its own.
            quiet.c_lflag |= tcflag_t(ECHONL)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if canHide {
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                signal(SIGINT, SIG_DFL)
                hiddenTerminal = nil
            }
        }
        return line(from: STDIN_FILENO, untilEnd: false)
    }

    /// A line typed in the terminal (`remote add`'s choice, `remote remove`'s confirmation).
    static func answer(prompt: String) -> String? {
        Terminal.write(prompt)
        return line(from: STDIN_FILENO, untilEnd: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads byte by byte up to a line break (a terminal) or the end (a pipe or a file, whose one trailing line
    /// break goes, as a password file's does); at most ``limit`` + 1 bytes, so that a longer one is refused by the
    /// check that follows rather than cut.
    private static func line(from fd: Int32, untilEnd: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var sawAnything = false
        while bytes.count <= limit {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { break }
            sawAnything = true
            if byte == 0x0A, !untilEnd { break }
            bytes.append(byte)
        }
        guard sawAnything else { return nil }
        if untilEnd, bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }
}

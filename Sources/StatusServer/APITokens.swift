import Glibc
import Logging
import SafeText
import Synchronization
import SystemSupport

/// The tokens that let a program (Home Assistant, a backup script) use the JSON API: each made by `contactbox token
/// create NAME [--write]` or by a paired browser on the page, shown once, sent as `Authorization: Bearer TOKEN`, and
/// good until revoked. A read token reads the contacts; a write token may change them too.
///
/// Kept in the state folder as `api-tokens` (mode 0600, owned like the folder: the service's user, also when the
/// command runs as root), a header comment and one line per token, `token NAME SCOPE SHA256-HEX CREATED-AT
/// LAST-USED` (scope `read` or `write`, unix seconds, 0 for never used). The box keeps only the SHA-256 of a token:
/// reading the file lets no one in. Lines that do not parse are skipped: a damaged file costs the tokens it damaged,
/// and they are made again.
///
/// The command line writes the file while the daemon runs: ``check(bearer:)`` looks at the file at most once a
/// second and reads it again when it changed, so that a revoke takes effect within a second or two without a
/// restart. Writers take turns on a lock of the folder (`flock`), as the settings file's do, and read the file
/// again under it: a last use written by the daemon never brings back a token the command line revoked.
public final class APITokens: Sendable {
    /// What a token lets its program do.
    public enum Scope: String, Sendable, Equatable {
        /// The contacts and the changes, read.
        case read
        /// Changes too (PUT, DELETE).
        case write
    }

    /// Who a request is from, by its token: the token's name (for the journal) and whether it may change anything.
    public struct Access: Sendable, Equatable {
        public var name: String
        public var canWrite: Bool

        public init(name: String, canWrite: Bool) {
            self.name = name
            self.canWrite = canWrite
        }
    }

    /// A token as `list()` shows it: never its secret, nor the secret's digest.
    public struct Info: Sendable, Equatable {
        public var name: String
        public var scope: Scope
        /// Unix seconds.
        public var created: Int64
        /// Unix seconds, to within ``lastUseResolution`` in another process than the daemon; nil when never used.
        public var lastUsed: Int64?
    }

    /// Why a token could not be made or revoked, in words. Never holds a token.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            case badName
            case nameTaken
            case tooMany
            /// The file is there but cannot be read: nothing is written over it.
            case cannotRead
            case cannotWrite
        }

        public var kind: Kind
        public var description: String
    }

    /// The most tokens the box keeps.
    public static let tokenLimit = 32
    /// The longest name.
    public static let nameLimit = 32
    /// What every token starts with: a token pasted in the wrong place is recognised for what it is.
    public static let prefix = "cbx_"
    /// A use is written back to the file at most this often per token, to spare the SD card.
    public static let lastUseResolution: Int64 = 300
    /// The file is looked at (stat) at most this often by ``check(bearer:)`` and ``list()``.
    static let statIntervalMillis: Int64 = 1000
    static let header =
        "# ContactBox: the tokens of the JSON API, kept as their SHA-256. Written by the box; "
        + "`contactbox token create|list|revoke` changes them.\n"
    static let sizeLimit = 64 * 1024
    /// 20 random bytes: 160 bits, 32 base32 characters.
    static let randomBytes = 20
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    struct Token: Sendable, Equatable {
        var name: String
        var scope: Scope
        var digest: [UInt8]
        var created: Int64
        /// 0: never used.
        var lastUsed: Int64
        /// What the file says: a use is written back when this is older than the resolution.
        var savedLastUse: Int64
    }

    struct State {
        var tokens: [Token] = []
        /// What the file looked like when last read or written: another process's change is noticed by it.
        var stamp: FileStamp?
        /// Monotonic milliseconds of the last look at the file; nil before the first.
        var lookedAt: Int64?
        /// Why the file could not be read at the last look: every token is then refused.
        var readProblem: Failure?
    }

    /// The state folder (`/var/lib/contactbox`).
    public let folder: String
    let logger: Logger?
    let state = Mutex(State())
    /// Unix seconds.
    let wallClock: @Sendable () -> Int64
    /// Monotonic milliseconds.
    let clock: @Sendable () -> Int64

    /// Reads the tokens of the state folder `folder`; a missing file is no token. `logger` hears of a file that
    /// cannot be read or written (never of a token).
    public init(
        folder: String, logger: Logger? = nil, wallClock: @escaping @Sendable () -> Int64 = wallClockSeconds,
        clock: @escaping @Sendable () -> Int64 = monotonicMillis
    ) {
        self.folder = folder
        self.logger = logger
        self.wallClock = wallClock
        self.clock = clock
        let now = clock()
        state.withLock { lookAtFile(&$0, millis: now) }
    }

    /// The file: `FOLDER/api-tokens`.
    public var path: String { folder + "/api-tokens" }

    /// Why the file could not be read when last looked at (it is there, but unreadable or too large), or nil: with
    /// a problem, every token is refused and nothing is written over the file.
    public var readProblem: Failure? {
        let now = clock()
        return state.withLock { state in
            refreshIfDue(&state, millis: now)
            return state.readProblem
        }
    }

    // MARK: Checking a request

    /// Whom `bearer` (a request's token, see ``bearerToken(authorization:)``) belongs to; nil for an unknown,
    /// revoked or malformed one. Its digest is compared with every token's in full, so that the time taken says
    /// nothing of how near a guess came. Its last use is now, written to the file at most every
    /// ``lastUseResolution``.
    public func check(bearer: String) -> Access? {
        guard Self.isWellFormed(bearer) else { return nil }
        let digest = PairingSecret.sha256(Array(bearer.utf8))
        let now = wallClock()
        let millis = clock()
        return state.withLock { state in
            refreshIfDue(&state, millis: millis)
            var found: Int?
            for index in state.tokens.indices
            where RequestGuard.constantTimeEqual(digest, state.tokens[index].digest) {
                found = index
            }
            guard let index = found else { return nil }
            let token = state.tokens[index]
            state.tokens[index].lastUsed = max(token.lastUsed, now)
            if now - token.savedLastUse >= Self.lastUseResolution {
                saveLastUse(&state, millis: millis)
            }
            return Access(name: token.name, canWrite: token.scope == .write)
        }
    }

    /// The token of an `Authorization` header's value: `Bearer TOKEN`, the scheme in any case, one space or more
    /// before the token, spaces or tabs after it; nil for any other scheme or shape (a token must be one word of
    /// RFC 6750's characters).
    public static func bearerToken(authorization: String) -> String? {
        var bytes = Array(authorization.utf8)[...]
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count + 1,
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0.0 | 0x20 == $0.1 }),
            bytes[bytes.startIndex + scheme.count] == UInt8(ascii: " ")
        else { return nil }
        let token = bytes.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
        // token68: letters, digits, "-._~+/", then "=" padding.
        let body = token.prefix { isTokenCharacter($0) }
        let padding = token.dropFirst(body.count)
        guard !body.isEmpty, padding.allSatisfy({ $0 == UInt8(ascii: "=") }) else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    // MARK: Making and revoking

    /// A new token named `name`, allowed to change the contacts when `write`: returned this once, kept only as its
    /// SHA-256. Throws for a bad name (1 to 32 letters, digits, dots, dashes or underscores), a name taken, the
    /// limit reached, or a file that cannot be read or written.
    public func create(name: String, write: Bool) throws(Failure) -> String {
        guard Self.isValidName(name) else {
            throw Failure(
                kind: .badName,
                description: "a token's name is 1 to \(Self.nameLimit) letters, digits, dots, dashes or "
                    + "underscores, not \"\(Self.shown(name))\"")
        }
        let token = Self.newToken()
        let created = wallClock()
        try update { tokens throws(Failure) in
            guard !tokens.contains(where: { $0.name == name }) else {
                throw Failure(
                    kind: .nameTaken,
                    description: "a token named \(name) exists already: revoke it first, or choose another name")
            }
            guard tokens.count < Self.tokenLimit else {
                throw Failure(
                    kind: .tooMany,
                    description: "the box keeps at most \(Self.tokenLimit) tokens: revoke one first")
            }
            tokens.append(
                Token(
                    name: name, scope: write ? .write : .read, digest: PairingSecret.sha256(Array(token.utf8)),
                    created: created, lastUsed: 0, savedLastUse: 0))
        }
        return token
    }

    /// The tokens, oldest first.
    public func list() -> [Info] {
        let now = clock()
        return state.withLock { state in
            refreshIfDue(&state, millis: now)
            return state.tokens.map {
                Info(
                    name: $0.name, scope: $0.scope, created: $0.created, lastUsed: $0.lastUsed == 0 ? nil : $0.lastUsed)
            }
        }
    }

    /// Revokes the token named `name`: its program is refused from the next request on. Returns whether there was
    /// one; throws when the file cannot be read or written (the token then stays).
    @discardableResult
    public func revoke(name: String) throws(Failure) -> Bool {
        try update { tokens throws(Failure) in
            guard let index = tokens.firstIndex(where: { $0.name == name }) else { return false }
            tokens.remove(at: index)
            return true
        }
    }

    // MARK: The file

    /// Under the folder's lock: the file read again (this process's uses kept), changed by `change`, written back.
    /// Nothing is written when `change` throws or changes nothing.
    private func update<Result: Sendable>(
        _ change: (inout [Token]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let millis = clock()
        return try state.withLock { state throws(Failure) -> Result in
            let lock = try lockFolder()
            defer { close(lock) }
            var tokens = try read(merging: state.tokens)
            state.tokens = tokens
            state.stamp = FileStamp(path: path)
            state.lookedAt = millis
            state.readProblem = nil
            let before = tokens
            let result = try change(&tokens)
            guard tokens != before else { return result }
            for index in tokens.indices { tokens[index].savedLastUse = tokens[index].lastUsed }
            try write(tokens)
            state.tokens = tokens
            state.stamp = FileStamp(path: path)
            return result
        }
    }

    /// This process's last uses written back, into the file as it is now (another process may have changed it).
    private func saveLastUse(_ state: inout State, millis: Int64) {
        do throws(Failure) {
            let lock = try lockFolder()
            defer { close(lock) }
            var tokens = try read(merging: state.tokens)
            for index in tokens.indices { tokens[index].savedLastUse = tokens[index].lastUsed }
            try write(tokens)
            state.tokens = tokens
            state.stamp = FileStamp(path: path)
            state.lookedAt = millis
            state.readProblem = nil
        } catch {
            // Tried again after the resolution, not at every request.
            let now = wallClock()
            for index in state.tokens.indices { state.tokens[index].savedLastUse = now }
            logger?.error("The API tokens' last uses could not be saved", metadata: ["tokens.error": "\(error)"])
        }
    }

    /// Looks at the file when the last look is a second old or more.
    private func refreshIfDue(_ state: inout State, millis: Int64) {
        if let lookedAt = state.lookedAt, millis - lookedAt < Self.statIntervalMillis, millis >= lookedAt { return }
        lookAtFile(&state, millis: millis)
    }

    /// Reads the file again when it changed (or went) since it was last read or written.
    private func lookAtFile(_ state: inout State, millis: Int64) {
        state.lookedAt = millis
        let stamp = FileStamp(path: path)
        guard stamp != state.stamp || state.readProblem != nil else { return }
        state.stamp = stamp
        do throws(Failure) {
            state.tokens = try read(merging: state.tokens)
            state.readProblem = nil
        } catch {
            // Refused rather than guessed: a token revoked in a file that cannot be read must not stay good.
            if state.readProblem != error {
                logger?.error("The API tokens cannot be read", metadata: ["tokens.error": "\(error)"])
            }
            state.tokens = []
            state.readProblem = error
        }
    }

    /// The file's tokens, each with the later of its last use there and in `known` (the same name and digest);
    /// none when there is no file.
    private func read(merging known: [Token]) throws(Failure) -> [Token] {
        guard SmallFile.exists(path) else { return [] }
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: Self.sizeLimit)
        } catch {
            let reason = error.message.hasPrefix("cannot read: ") ? String(error.message.dropFirst(13)) : error.message
            throw Failure(kind: .cannotRead, description: "cannot read the tokens file \(path): \(reason)")
        }
        var tokens = Self.parse(bytes)
        for index in tokens.indices {
            if let same = known.first(where: { $0.name == tokens[index].name && $0.digest == tokens[index].digest }) {
                tokens[index].lastUsed = max(tokens[index].lastUsed, same.lastUsed)
                tokens[index].savedLastUse = max(tokens[index].savedLastUse, same.savedLastUse)
            }
        }
        return tokens
    }

    static func parse(_ bytes: [UInt8]) -> [Token] {
        var tokens: [Token] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 6, fields[0] == "token", isValidName(fields[1]),
                let scope = Scope(rawValue: String(fields[2])),
                let digest = PairingSecret.bytes(hex: fields[3]), digest.count == 32,
                let created = Int64(fields[4]), let lastUsed = Int64(fields[5]),
                !tokens.contains(where: { $0.name == fields[1] })
            else { continue }
            tokens.append(
                Token(
                    name: String(fields[1]), scope: scope, digest: digest, created: created, lastUsed: lastUsed,
                    savedLastUse: lastUsed))
            if tokens.count == tokenLimit { break }
        }
        return tokens
    }

    private func write(_ tokens: [Token]) throws(Failure) {
        var text = Self.header
        for token in tokens {
            text +=
                "token \(token.name) \(token.scope.rawValue) \(PairingSecret.hex(token.digest)) \(token.created) "
                + "\(token.lastUsed)\n"
        }
        do {
            try SmallFile.replace(path, with: Array(text.utf8), mode: 0o600, owner: folderOwner())
        } catch {
            throw Failure(
                kind: .cannotWrite,
                description: "cannot write the tokens file \(path): \(error.reason)"
                    + (error.isUnchanged ? "" : " (it may not be on the disk yet)"))
        }
    }

    /// Waits for the folder's other writers (the daemon, a command, the settings); the lock goes with the
    /// descriptor, which the caller closes.
    private func lockFolder() throws(Failure) -> Int32 {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw Failure(
                kind: .cannotWrite,
                description:
                    "cannot write the tokens file \(path): \(SmallFile.ReplaceFailure(code: errno, isUnchanged: true).reason)"
            )
        }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw Failure(
                    kind: .cannotWrite, description: "cannot lock the folder \(folder): \(SystemError.text(code))")
            }
        }
        return fd
    }

    /// The owner of the state folder: the service's user, whom a file written by root must still belong to.
    private func folderOwner() -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }

    // MARK: Names and tokens

    /// 1 to 32 of `A-Z a-z 0-9 . _ -`: one word in the file, and safe to show anywhere.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        return (1...nameLimit).contains(bytes.count)
            && bytes.allSatisfy {
                isLetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }

    /// `cbx_` and 32 base32 characters: 160 bits from the system's generator (getrandom(2) on Linux).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<randomBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var characters: [UInt8] = []
        // 5 bytes are 8 characters of 5 bits.
        for group in stride(from: 0, to: bytes.count, by: 5) {
            var bits: UInt64 = 0
            for byte in bytes[group..<group + 5] { bits = bits << 8 | UInt64(byte) }
            for shift in stride(from: 35, through: 0, by: -5) {
                characters.append(alphabet[Int(bits >> UInt64(shift) & 31)])
            }
        }
        return prefix + String(decoding: characters, as: UTF8.self)
    }

    /// The shape of a token this box makes: anything else is refused before any digest is taken.
    static func isWellFormed(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        let prefixBytes = Array(prefix.utf8)
        return bytes.count == prefixBytes.count + randomBytes * 8 / 5
            && bytes.starts(with: prefixBytes)
            && bytes.dropFirst(prefixBytes.count).allSatisfy { alphabet.contains($0) }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || Array("-._~+/".utf8).contains(byte)
    }

    /// A refused name as a message shows it: its first 40 characters, control characters escaped.
    private static func shown(_ name: String) -> String {
        printable(String(String.UnicodeScalarView(name.unicodeScalars.prefix(40))))
            + (name.unicodeScalars.count > 40 ? "..." : "")
    }
}

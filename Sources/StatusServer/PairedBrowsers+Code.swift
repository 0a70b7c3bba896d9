import Glibc
import SystemSupport

/// The one-time code for a box without a button (the simulated panel), or for whoever prefers SSH: `contactbox pair`
/// prints it, the page takes it instead of a press.
extension PairedBrowsers {
    /// How long a code is good for.
    public static let codeLifetime = Duration.seconds(10 * 60)
    /// Wrong codes before the code is void and a new one must be asked for: 5 guesses at 1 in 10^8 each.
    static let codeGuesses = 5

    /// Writes a new code to the state folder, replacing any earlier one, and returns it as a person types it
    /// ("1234-5678").
    public static func issueCode(folder: String, now: Int64 = wallClockSeconds()) throws(SmallFile.ReplaceFailure)
        -> String
    {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<8).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
        let files = PairingFiles(folder: folder)
        let line =
            "\(PairingSecret.hex(PairingSecret.sha256(Array(digits.utf8)))) \(now + codeLifetime.wholeMilliseconds / 1000)\n"
        try SmallFile.replace(files.code, with: Array(line.utf8), mode: 0o600, owner: files.folderOwner())
        return digits.prefix(4) + "-" + digits.dropFirst(4)
    }

    /// Forgets every browser from outside the daemon (`contactbox pair --forget-all`): the running daemon notices
    /// the file changed at the next request.
    public static func forgetAll(folder: String) throws(SmallFile.ReplaceFailure) {
        let files = PairingFiles(folder: folder)
        try SmallFile.replace(
            files.pairings, with: Array(PairingFiles.header.utf8), mode: 0o600, owner: files.folderOwner())
    }

    /// The page's code: when it is the one `contactbox pair` printed and still good, the browser at `address` is
    /// paired and its new secret returned. Spaces and dashes are ignored. A used code is void; so is one guessed
    /// wrong five times.
    public func redeem(code typed: String, address: String) -> PairingSecret? {
        guard let file else { return nil }
        let digits = String(typed.unicodeScalars.filter { $0 != " " && $0 != "-" })
        let now = wallClock()
        return state.withLock { state in
            guard let bytes = try? SmallFile.read(file.code, limit: 256) else { return nil }
            let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count == 2, let expected = PairingSecret.bytes(hex: fields[0]), let expires = Int64(fields[1])
            else { return nil }
            guard now < expires else {
                try? SmallFile.remove(file.code)
                return nil
            }
            guard digits.utf8.count == 8, PairingSecret.same(PairingSecret.sha256(Array(digits.utf8)), expected) else {
                state.failedCodes += 1
                if state.failedCodes >= Self.codeGuesses {
                    state.failedCodes = 0
                    try? SmallFile.remove(file.code)
                }
                return nil
            }
            state.failedCodes = 0
            try? SmallFile.remove(file.code)
            reloadIfChanged(&state, now: now)
            let secret = PairingSecret.random()
            let id = Self.newID(taken: state.browsers.map(\.id) + state.pending.map(\.id))
            add(Browser(id: id, digest: secret.digest, pairedAt: now, lastUsed: now, address: address), &state)
            return secret
        }
    }
}

import Glibc
import SystemSupport

/// The two files of pairing in the state folder, both mode 0600 and owned like the folder (the service's user, also
/// when `contactbox pair` runs as root):
/// - `pairings`: one line per paired browser, `browser ID SHA256-HEX PAIRED-AT LAST-USED ADDRESS`;
/// - `pairing-code`: the one-time code `contactbox pair` printed, as `SHA256-HEX EXPIRES-AT`, until it is used,
///   expires, or is guessed wrong five times.
/// Lines that do not parse are skipped: a damaged file costs the pairings it damaged, and they pair again.
struct PairingFiles: Sendable {
    let folder: String

    var pairings: String { folder + "/pairings" }
    var code: String { folder + "/pairing-code" }

    static let header =
        "# ContactBox: the browsers paired with this box. Written by the box; "
        + "`contactbox pair --forget-all` forgets them all.\n"
    static let sizeLimit = 64 * 1024

    func readBrowsers() -> [PairedBrowsers.Browser] {
        guard let bytes = try? SmallFile.read(pairings, limit: Self.sizeLimit) else { return [] }
        var browsers: [PairedBrowsers.Browser] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 6, fields[0] == "browser", fields[1].utf8.count == 8,
                let digest = PairingSecret.bytes(hex: fields[2]), digest.count == 32,
                let pairedAt = Int64(fields[3]), let lastUsed = Int64(fields[4]),
                !browsers.contains(where: { $0.id == fields[1] })
            else { continue }
            browsers.append(
                PairedBrowsers.Browser(
                    id: String(fields[1]), digest: digest, pairedAt: pairedAt, lastUsed: lastUsed,
                    address: Self.printableAddress(String(fields[5]))))
            if browsers.count == PairedBrowsers.browserLimit { break }
        }
        return browsers
    }

    /// A failure leaves the old file: the pairings made since last last only until the next start.
    func write(_ browsers: [PairedBrowsers.Browser]) -> SmallFile.ReplaceFailure? {
        var text = Self.header
        for browser in browsers {
            text +=
                "browser \(browser.id) \(PairingSecret.hex(browser.digest)) \(browser.pairedAt) "
                + "\(browser.lastUsed) \(Self.printableAddress(browser.address))\n"
        }
        do {
            try SmallFile.replace(pairings, with: Array(text.utf8), mode: 0o600, owner: folderOwner())
            return nil
        } catch {
            return error
        }
    }

    /// The owner of the state folder: the service's user.
    func folderOwner() -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }

    /// An address as the file and the page show it: the characters of an IPv4 or IPv6 address, nothing else.
    static func printableAddress(_ address: String) -> String {
        let kept = address.unicodeScalars.filter { $0.properties.isASCIIHexDigit || $0 == "." || $0 == ":" }
        return kept.isEmpty ? "unknown" : String(String.UnicodeScalarView(kept.prefix(45)))
    }
}

/// What identifies one version of a file: a change by another process (or its removal) changes it.
struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

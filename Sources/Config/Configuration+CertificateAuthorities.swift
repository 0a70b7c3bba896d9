import Glibc
import SystemSupport

/// What check-config can tell about `ca_file` and `ca_path` without a connection (the `contactbox` command never
/// loads libcurl or OpenSSL): the mistakes that otherwise show up only at the first sync, as a server certificate
/// "signed by a certificate authority this box does not trust".
enum CertificateAuthorities {
    /// A problem with a readable `ca_file`: nil when it holds at least one PEM certificate.
    static func caFileProblem(_ path: String) -> String? {
        // A CA bundle is a few hundred KiB at most (Debian's whole bundle: about 220 KiB).
        guard let bytes = try? SmallFile.read(path, limit: 4 << 20) else { return nil }  // unreadable: checked apart
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            return "ca_file \(path) holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\"); a DER file can be "
                + "converted with: openssl x509 -inform der -in FILE -out FILE.pem"
        }
        return nil
    }

    /// A problem with a `ca_path` folder: nil when it has at least one certificate under its subject hash
    /// (`1a2b3c4d.0`), the only names OpenSSL looks up there.
    static func caPathProblem(_ path: String) -> String? {
        guard let folder = opendir(path) else { return nil }  // not a folder, or unreadable: checked apart
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if isHashedName(name) { return nil }
        }
        return "ca_path \(path) has no certificate under a hashed name (like 1a2b3c4d.0), and OpenSSL finds "
            + "certificates there by hash only: run `openssl rehash \(path)` (or c_rehash), or name the CA file "
            + "as ca_file"
    }

    /// `1a2b3c4d.0`: eight hex digits, a dot, a number (`openssl rehash`; `.r0` names are CRLs).
    static func isHashedName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 8, !parts[1].isEmpty else { return false }
        return parts[0].allSatisfy(\.isHexDigit) && parts[1].allSatisfy(\.isWholeNumber)
    }
}

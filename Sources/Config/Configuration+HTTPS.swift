import Glibc
import SystemSupport

/// The status page over HTTPS as well, with a certificate and key the household provides: `https_listen`,
/// `tls_certificate` and `tls_key` under `[status]`, all three or none. The plain page stays where `listen` says.
///
/// ```toml
/// [status]
/// https_listen = "0.0.0.0:8443"
/// tls_certificate = "/etc/contactbox/status.crt"
/// tls_key = "/etc/contactbox/status.key"
/// ```
public struct HTTPSSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// PEM: the certificate, and any intermediate ones after it.
    public var certificatePath: String
    /// PEM, unencrypted; readable by the service and nobody else (mode 600, or 640 with root as owner).
    public var keyPath: String

    public init(host: String, port: Int, certificatePath: String, keyPath: String) {
        self.host = host
        self.port = port
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    static let sizeLimit = 64 * 1024

    /// Both files' text, for the status server. The key is refused when others may read it, and never appears in
    /// an error.
    public func read() throws(ConfigurationError) -> (certificate: String, key: String) {
        func text(_ path: String, key: String, check: (stat) -> String? = { _ in nil }) throws(ConfigurationError)
            -> String
        {
            let bytes: [UInt8]
            do {
                bytes = try SmallFile.read(path, limit: Self.sizeLimit, check: check)
            } catch {
                throw ConfigurationError(file: path, key: key, message: error.message)
            }
            guard let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN ") else {
                throw ConfigurationError(file: path, key: key, message: "is no PEM file (no -----BEGIN line)")
            }
            return text
        }
        let certificate = try text(certificatePath, key: "tls_certificate")
        let key = try text(keyPath, key: "tls_key") { info in
            guard info.st_mode & 0o007 != 0 else { return nil }
            return "other users may read this key (mode \(String(info.st_mode & 0o777, radix: 8))): "
                + "chmod 600 it (or 640, owned by root, group contactbox)"
        }
        return (certificate, key)
    }
}

extension ConfigurationReader {
    static let httpsKeys = ["https_listen", "tls_certificate", "tls_key"]

    /// The three keys together, or none of them.
    mutating func readHTTPS(_ block: Block) -> HTTPSSettings? {
        let given = Self.httpsKeys.filter { block.table[$0] != nil }
        guard !given.isEmpty else { return nil }
        guard given.count == Self.httpsKeys.count else {
            let missing = Self.httpsKeys.filter { !given.contains($0) }
            fail(
                block, given[0],
                "https_listen, tls_certificate and tls_key go together: add \(missing.joined(separator: " and "))")
            return nil
        }
        guard let listen = string(block, "https_listen"), let certificate = string(block, "tls_certificate"),
            let key = string(block, "tls_key")
        else { return nil }
        let address: (host: String, port: Int)
        do {
            address = try StatusSettings.parse(listen: listen)
        } catch {
            fail(block, "https_listen", "https_" + error.message)
            return nil
        }
        for (name, path) in [("tls_certificate", certificate), ("tls_key", key)] where !path.hasPrefix("/") {
            fail(block, name, "\(name) must be an absolute path (found \(Configuration.quoted(path)))")
            return nil
        }
        return HTTPSSettings(host: address.host, port: address.port, certificatePath: certificate, keyPath: key)
    }
}

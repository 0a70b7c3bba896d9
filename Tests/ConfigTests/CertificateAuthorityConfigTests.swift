import Glibc
import TestSupport
import Testing

@testable import Config

/// check-config on `ca_file` and `ca_path`, with the test CA that `TestCertificates` makes: the mistakes that would
/// otherwise show only at the first sync, as an untrusted server certificate.
@Suite("check-config finds a ca_file without certificates and a ca_path that is not hashed")
struct CertificateAuthorityConfigTests {
    func problems(caFile: String? = nil, caPath: String? = nil) throws -> [ConfigurationError] {
        let directory = try TemporaryDirectory()
        let password = directory.file("nas.password")
        let file = fopen(password, "w")
        fputs("secret\n", file)
        fclose(file)
        chmod(password, 0o600)
        var text = """
            [[remote]]
            name = "nas"
            kind = "carddav"
            url = "https://nas.local/dav/"
            username = "alice"
            password_file = "\(password)"

            """
        if let caFile { text += "ca_file = \"\(caFile)\"\n" }
        if let caPath { text += "ca_path = \"\(caPath)\"\n" }
        let path = directory.file("contactbox.toml")
        let configuration = try Configuration.parse(text: text, path: path)
        return configuration.resourceProblems(path: path).filter { $0.key == "ca_file" || $0.key == "ca_path" }
    }

    @Test("the test CA as ca_file, and its hashed folder as ca_path, pass")
    func validPass() throws {
        let certificates = try TestCertificates.shared()
        #expect(try problems(caFile: certificates.authority, caPath: certificates.hashedFolder) == [])
    }

    @Test("a ca_file with no PEM certificate in it is named, with how to convert DER")
    func notPEM() throws {
        let certificates = try TestCertificates.shared()
        // The CA's private key: a PEM file, but no certificate.
        let found = try problems(caFile: certificates.folder + "/ca.key")
        #expect(found.map(\.key) == ["ca_file"])
        #expect(found.first?.message.contains("holds no PEM certificate") == true)
        #expect(found.first?.message.contains("openssl x509 -inform der") == true)
    }

    @Test("a ca_path folder without hashed names is named, with the rehash command")
    func notHashed() throws {
        let certificates = try TestCertificates.shared()
        let found = try problems(caPath: certificates.unhashedFolder)
        #expect(found.map(\.key) == ["ca_path"])
        #expect(found.first?.message.contains("openssl rehash \(certificates.unhashedFolder)") == true)
    }

    @Test(
        "hashed names",
        arguments: [
            ("1a2b3c4d.0", true), ("5E6F7A8B.12", true), ("1a2b3c4d.r0", false),
            ("ca.pem", false), ("1a2b3c4.0", false), ("1a2b3c4d.", false),
        ])
    func hashedNames(name: String, hashed: Bool) {
        #expect(CertificateAuthorities.isHashedName(name) == hashed)
    }
}

import Foundation
import TestSupport
import Testing

/// `contactbox sync` and `check-config` against Radicale over HTTPS, with the test CA (`TestCertificates`): what a
/// person sees when the box does not trust the server's certificate, and that `ca_file` fixes it.
@Suite(
    "contactbox over HTTPS", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct HTTPSCommandTests {
    func configure(_ work: Workspace, server: RadicaleServer, caLines: String) throws -> String {
        try work.carddavConfig(
            name: "radicale", url: server.addressBookURL(), username: RadicaleServer.username,
            password: RadicaleServer.password, more: caLines)
    }

    @Test("without ca_file: exit 69, the message says the CA is not trusted and suggests ca_file; with it, a sync")
    func untrustedThenTrusted() throws {
        let certificates = try TestCertificates.shared()
        let work = try Workspace()
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        try server.createAddressBook()
        _ = try contactbox([
            "import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann") + card("bob", "Bob")),
        ])

        let untrusted = try configure(work, server: server, caLines: "")
        let refused = try contactbox(["sync", "--config", untrusted])
        #expect(refused.status == 69, "\(refused.stdout)\(refused.stderr)")
        let output = refused.stdout + refused.stderr
        #expect(output.contains("radicale: "), "\(output)")
        #expect(output.contains("is signed by a certificate authority this box does not trust"), "\(output)")
        #expect(output.contains("set ca_file"), "\(output)")
        #expect(!output.contains(RadicaleServer.password))
        #expect(!server.loggedRequests().contains { $0.contains("ContactBox") }, "\(server.loggedRequests())")
        #expect(directoryEntries(server.collectionFolder()).filter { $0.hasSuffix(".vcf") }.isEmpty)

        let trusted = try configure(work, server: server, caLines: "ca_file = \"\(certificates.authority)\"")
        #expect(try contactbox(["check-config", "--config", trusted]).status == 0)
        let synced = try contactbox(["sync", "--config", trusted])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(
            synced.stdout.contains("radicale: synced: store: 0 downloaded, 0 updated, 0 deleted; server: 2 uploaded"),
            "\(synced.stdout)")
        #expect(directoryEntries(server.collectionFolder()).filter { $0.hasSuffix(".vcf") }.count == 2)

        // discover: the remote's ca_file, or --ca-file for an account given on the command line.
        let discovered = try contactbox(["discover", "--config", trusted, "--remote", "radicale"])
        #expect(discovered.status == 0, "\(discovered.stderr)")
        #expect(discovered.stdout.contains(server.addressBookURL()), "\(discovered.stdout)")
        let password = work.path + "/radicale.password"
        let adHoc = try contactbox([
            "discover", server.baseURL, "--username", RadicaleServer.username, "--password-file", password,
            "--ca-file", certificates.authority,
        ])
        #expect(adHoc.status == 0, "\(adHoc.stderr)")
        #expect(adHoc.stdout.contains(server.addressBookURL()), "\(adHoc.stdout)")
        let refusedDiscovery = try contactbox([
            "discover", server.baseURL, "--username", RadicaleServer.username, "--password-file", password,
        ])
        #expect(refusedDiscovery.status == 69)
        #expect(refusedDiscovery.stderr.contains("set ca_file"), "\(refusedDiscovery.stderr)")
    }

    @Test("check-config names a ca_path that is not hashed (exit 78)")
    func unhashedCAPath() throws {
        let certificates = try TestCertificates.shared()
        let work = try Workspace()
        let server = try RadicaleServer(tls: .trusted())
        let config = try configure(work, server: server, caLines: "ca_path = \"\(certificates.unhashedFolder)\"")
        let result = try contactbox(["check-config", "--config", config])
        #expect(result.status == 78)
        #expect((result.stdout + result.stderr).contains("openssl rehash \(certificates.unhashedFolder)"))
    }
}

import Glibc
import SystemSupport
import TestSupport
import Testing

@testable import StatusServer

/// The page over HTTPS with the household's certificate (here the tests' CA's), read by curl as a browser would:
/// trusting that CA only.
@Suite("The status page over HTTPS")
struct HTTPSTests {
    func server(_ pair: TestCertificates.Pair, pairings: PairedBrowsers = PairedBrowsers(folder: nil)) throws
        -> StatusServer
    {
        func text(_ path: String) throws -> String {
            String(decoding: try SmallFile.read(path, limit: 65_536), as: UTF8.self)
        }
        var settings = StatusServer.Settings(host: "127.0.0.1", port: 0)
        settings.tls = StatusServer.Settings.TLS(certificate: try text(pair.certificate), key: try text(pair.key))
        return try StatusServer(
            settings: settings, snapshot: { makeSnapshot() }, syncNow: {}, pairings: pairings,
            logger: .init(label: "test") { _ in RecordingLogHandler(records: LogRecords()) })
    }

    /// curl with the test CA; the status line and headers, then the body.
    func curl(_ arguments: [String]) throws -> ChildProcess.Outcome {
        let certificates = try TestCertificates.shared()
        return try ChildProcess.run(
            "/usr/bin/curl", ["-s", "-i", "--max-time", "5", "--cacert", certificates.authority] + arguments)
    }

    @Test("served over TLS with the given certificate; the pairing cookie is Secure; plain HTTP gets no page")
    func served() throws {
        let certificates = try TestCertificates.shared()
        let server = try server(certificates.server)
        let status = try curl(["https://127.0.0.1:\(server.port)/api/status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasPrefix("HTTP/1.1 200"), "\(status.stdout.prefix(200))")
        #expect(status.stdout.contains("\"state\":\"idle\""))
        let asked = try curl([
            "-X", "POST", "-H", "Origin: https://127.0.0.1:\(server.port)",
            "https://127.0.0.1:\(server.port)/api/pairing",
        ])
        #expect(asked.stdout.hasPrefix("HTTP/1.1 202"), "\(asked.stdout.prefix(300))")
        #expect(asked.stdout.contains("; HttpOnly; SameSite=Strict; Secure\r\n"), "\(asked.stdout.prefix(400))")
        let plain = try? HTTPTestClient.request(port: server.port, path: "/api/status")
        #expect(plain?.status != 200)
    }

    @Test("a client that does not know the household's CA is refused by its own check")
    func unknownAuthority() throws {
        let server = try server(try TestCertificates.shared().server)
        let outcome = try ChildProcess.run(
            "/usr/bin/curl", ["-s", "--max-time", "5", "https://127.0.0.1:\(server.port)/api/status"])
        #expect(outcome.status == 60)
    }

    @Test("a key that does not belong to the certificate: the server does not start, and says why")
    func mismatchedKey() throws {
        let certificates = try TestCertificates.shared()
        let mixed = TestCertificates.Pair(
            certificate: certificates.server.certificate, key: certificates.wrongHost.key)
        #expect {
            _ = try server(mixed)
        } throws: { error in
            "\(error)".contains("HTTPS (a certificate and key that do not belong together")
        }
    }
}

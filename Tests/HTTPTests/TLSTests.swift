import Foundation
import HTTP
import Testing

/// TLS against a local HTTPS server whose certificate no public authority signed: refused by default, accepted
/// with its certificate as `caFile`.
@Suite("TLS verification", .serialized)
struct TLSTests {
    /// A self-signed certificate for 127.0.0.1, made with the openssl command, and a server using it.
    final class TLSServer {
        let folder: String
        let process = Process()
        var port = 0
        var certificate: String { folder + "/cert.pem" }

        init() throws {
            folder = NSTemporaryDirectory() + "contactbox-tls-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", certificate,
            ]
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Fixtures/tls_server.py").path
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, certificate, folder + "/key.pem"]
            process.standardOutput = output
            try process.run()
            // The script prints "PORT <port>" once it listens.
            let fields = firstLine(of: output).split(whereSeparator: \.isWhitespace)
            port = fields.count == 2 && fields[0] == "PORT" ? Int(fields[1]) ?? 0 : 0
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test("an unknown certificate authority is refused by default, with a TLS error")
    func untrustedIsRefused() throws {
        let server = try TLSServer()
        #expect(server.port > 0)
        let client = try makeClient()
        do {
            _ = try client.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/"))
            Issue.record("a self-signed certificate was accepted")
        } catch {
            #expect(error.kind == .tls, "\(error)")
        }
    }

    @Test("the server's certificate as ca_file makes the connection trusted")
    func caFileIsTrusted() throws {
        let server = try TLSServer()
        let client = try HTTPClient(
            HTTPConfiguration(userAgent: "ContactBox/test", connectTimeout: 5, caFile: server.certificate, caPath: nil),
            logger: .init(label: "TLSTests"))
        let (response, body) = try client.send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/"))
        #expect(response.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "tls ok")
    }
}

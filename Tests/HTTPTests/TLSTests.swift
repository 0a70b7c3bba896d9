import Foundation
import HTTP
import Logging
import TestSupport
import Testing

/// The HTTP client over TLS against a real Radicale serving HTTPS itself, with certificates from a test CA made by
/// the openssl command (`TestCertificates`): verification is on by default, a certificate that fails it stops the
/// connection before anything is sent, with a message that names the problem; `caFile` and `caPath` work;
/// connections (and so their TLS sessions) are reused.
@Suite(
    "TLS against Radicale over HTTPS", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct TLSTests {
    static let card = Array(
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:tls-refused\r\nFN:Tessa TLS\r\nN:TLS;Tessa;;;\r\nEND:VCARD\r\n".utf8)

    func makeClient(
        agent: String, caFile: String? = nil, caPath: String? = "/etc/ssl/certs", maxConcurrent: Int = 4
    ) throws -> HTTPClient {
        var configuration = HTTPConfiguration(
            userAgent: agent, connectTimeout: .seconds(5), caFile: caFile, caPath: caPath, maxConcurrent: maxConcurrent)
        configuration.credentials = Credentials(username: RadicaleServer.username, password: RadicaleServer.password)
        return try HTTPClient(configuration, logger: Logger(label: "TLSTests"))
    }

    /// PUTs a card with credentials through `client` and returns the failure. Then checks that nothing reached
    /// Radicale: no card stored, and none of its request lines carries `agent` (the client's User-Agent, which
    /// Radicale logs for every request), once a request made afterwards has been logged.
    func refusal(
        by server: RadicaleServer, to client: HTTPClient, agent: String, url: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> HTTPError? {
        let target = (url ?? server.baseURL) + "alice/contacts/tls-refused.vcf"
        var failure: HTTPError?
        do {
            let (response, _) = try client.send(
                HTTPRequest(
                    method: "PUT", url: target, headers: [HTTPHeader("Content-Type", "text/vcard")], body: Self.card))
            Issue.record("the request went through: \(response.status)", sourceLocation: sourceLocation)
        } catch {
            failure = error
        }
        // A request Radicale must log after anything the refused client could have sent on its connection.
        try controlRequest(server)
        #expect(
            server.waitForLog(containing: "ContactBox/control"), "the control request was not logged: \(server.log())",
            sourceLocation: sourceLocation)
        let requests = server.loggedRequests()
        #expect(requests.count == 1, "\(requests)", sourceLocation: sourceLocation)
        #expect(!requests.contains { $0.contains(agent) }, "\(requests)", sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: server.collectionFolder() + "/tls-refused.vcf"),
            sourceLocation: sourceLocation)
        if let failure {
            #expect(failure.kind == .tls, "\(failure)", sourceLocation: sourceLocation)
            #expect(!"\(failure)".contains(RadicaleServer.password), sourceLocation: sourceLocation)
        }
        return failure
    }

    /// `curl -k`: an unauthenticated GET that skips verification, so that it also reaches a server whose
    /// certificate the client under test refuses.
    func controlRequest(_ server: RadicaleServer) throws {
        let directory = try TemporaryDirectory()
        let curl = try ChildProcess(
            path: "curl",
            arguments: ["-s", "-k", "-o", "/dev/null", "--max-time", "10", "-A", "ContactBox/control", server.baseURL],
            logPath: directory.file("curl.log"))
        #expect(curl.waitForExit() == 0, "curl -k failed")
    }

    @Test("an unknown certificate authority is refused by default: nothing sent, the message suggests ca_file")
    func unknownAuthority() throws {
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        let agent = "ContactBox/unknown-ca"
        let failure = try refusal(by: server, to: makeClient(agent: agent), agent: agent)
        #expect(failure?.message.contains("signed by a certificate authority this box does not trust") == true)
        #expect(failure?.message.contains("unable to get local issuer certificate") == true)
        #expect(failure?.message.contains("set ca_file") == true)
        #expect(failure?.message.contains("nothing was sent") == true)
        // The client cut the handshake with an alert, which Radicale logs.
        #expect(server.waitForLog(containing: "alert unknown ca"), "\(server.log())")
    }

    /// A server whose certificate, `pair`, our own test CA signed, and a client that trusts that CA: the refusal.
    func refusalOfTrustedCA(
        _ pair: KeyPath<TestCertificates, TestCertificates.Pair>, agent: String
    ) throws -> (RadicaleServer, HTTPError?) {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(
            tls: .init(certificates[keyPath: pair], authority: certificates.authority), logRequests: true)
        let client = try makeClient(agent: agent, caFile: certificates.authority, caPath: nil)
        return (server, try refusal(by: server, to: client, agent: agent))
    }

    @Test("a certificate for another host name is refused, naming the host")
    func wrongHostName() throws {
        let (_, failure) = try refusalOfTrustedCA(\.wrongHost, agent: "ContactBox/wrong-host")
        #expect(
            failure?.message.contains("the server's certificate (127.0.0.1) is not issued for that host name") == true)
        #expect(failure?.message.contains("target host name '127.0.0.1'") == true)
    }

    @Test("an expired certificate is refused, saying so")
    func expired() throws {
        let (server, failure) = try refusalOfTrustedCA(\.expired, agent: "ContactBox/expired")
        #expect(failure?.message.contains("the server's certificate (127.0.0.1) has expired") == true)
        #expect(failure?.message.contains("certificate has expired") == true)
        #expect(server.waitForLog(containing: "alert certificate expired"), "\(server.log())")
    }

    @Test("a certificate not valid yet is refused, pointing to the clock")
    func notYetValid() throws {
        let (_, failure) = try refusalOfTrustedCA(\.notYetValid, agent: "ContactBox/not-yet-valid")
        #expect(failure?.message.contains("the server's certificate (127.0.0.1) is not valid yet") == true)
        #expect(failure?.message.contains("certificate is not yet valid") == true)
        #expect(failure?.message.contains("Check this box's clock") == true)
    }

    @Test("a self-signed certificate is refused by default, and trusted as its own caFile")
    func selfSigned() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(
            tls: .init(certificates.selfSigned, authority: certificates.selfSigned.certificate), logRequests: true)
        let agent = "ContactBox/self-signed"
        let failure = try refusal(by: server, to: makeClient(agent: agent), agent: agent)
        #expect(failure?.message.contains("(SSL certificate problem: self-signed certificate)") == true)
        #expect(failure?.message.contains("the server's own, if it is self-signed") == true)

        try server.createAddressBook()
        let trusting = try makeClient(
            agent: "ContactBox/self-signed-trusted", caFile: certificates.selfSigned.certificate, caPath: nil)
        let (response, _) = try trusting.send(
            HTTPRequest(method: "PROPFIND", url: server.addressBookURL(), headers: [HTTPHeader("Depth", "0")]))
        #expect(response.status == 207)
    }

    @Test("the CA as caFile is trusted, for 127.0.0.1 and for localhost")
    func caFile() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        try server.createAddressBook()
        let client = try makeClient(agent: "ContactBox/ca-file", caFile: certificates.authority, caPath: nil)
        for host in ["127.0.0.1", "localhost"] {
            let url = "https://\(host):\(server.port)/alice/contacts/tessa.vcf"
            let (put, _) = try client.send(
                HTTPRequest(
                    method: "PUT", url: url, headers: [HTTPHeader("Content-Type", "text/vcard")], body: Self.card))
            #expect(put.status == 201 || put.status == 204, "\(host): \(put.status)")
            let (get, body) = try client.send(HTTPRequest(method: "GET", url: url))
            #expect(get.status == 200)
            #expect(String(decoding: body, as: UTF8.self).contains("FN:Tessa TLS"))
        }
        #expect(server.loggedRequests().filter { $0.contains("ContactBox/ca-file") }.count == 4)
    }

    @Test("a hashed CA folder (openssl rehash) as caPath is trusted; the same folder unhashed is not")
    func caPath() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        let url = server.baseURL + ".well-known/carddav"
        let hashed = try makeClient(agent: "ContactBox/ca-path", caPath: certificates.hashedFolder)
        let (response, _) = try hashed.send(
            HTTPRequest(method: "PROPFIND", url: url, headers: [HTTPHeader("Depth", "0")]))
        #expect(response.status < 500, "\(response.status)")
        #expect(server.waitForLog(containing: "ContactBox/ca-path"))

        let unhashed = try makeClient(agent: "ContactBox/unhashed", caPath: certificates.unhashedFolder)
        do {
            _ = try unhashed.send(HTTPRequest(method: "PROPFIND", url: url, headers: [HTTPHeader("Depth", "0")]))
            Issue.record("a CA in a folder without hash links was found")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.message.contains("openssl rehash"), "\(error)")
        }
    }

    @Test("an unreadable caFile fails clearly, naming the option")
    func unreadableCAFile() throws {
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        let missing = "/nonexistent/contactbox-ca.pem"
        let agent = "ContactBox/bad-ca-file"
        let failure = try refusal(by: server, to: makeClient(agent: agent, caFile: missing, caPath: nil), agent: agent)
        #expect(failure?.message.contains("could not be loaded") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("Check ca_file and ca_path") == true)
    }

    /// PUTs cards `card-0.vcf` ... into `book` through `client.sendAll`, and returns their statuses in order of finish.
    static func putCards(_ client: HTTPClient, _ book: String, count: Int) throws -> [Int] {
        let requests = (0..<count).map { index in
            HTTPRequest(
                method: "PUT", url: book + "card-\(index).vcf", headers: [HTTPHeader("Content-Type", "text/vcard")],
                body: Array("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:card-\(index)\r\nFN:Card \(index)\r\nEND:VCARD\r\n".utf8)
            )
        }
        var statuses: [Int] = []
        try client.sendAll(requests) { _, result in statuses.append(try result.get().0.status) }
        return statuses
    }

    @Test("Radicale's own server closes every connection: each new one resumes the TLS session instead")
    func sessionsResumed() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .trusted(), logRequests: true)
        try server.createAddressBook()
        let book = server.addressBookURL()

        let serial = try makeClient(agent: "ContactBox/serial", caFile: certificates.authority, caPath: nil)
        for _ in 0..<10 {
            let (response, _) = try serial.send(
                HTTPRequest(method: "PROPFIND", url: book, headers: [HTTPHeader("Depth", "0")]))
            #expect(response.status == 207)
        }
        #expect(serial.requestCounts["PROPFIND"] == 10)
        #expect(serial.connectionsOpened == 10)
        // One full handshake; the nine after it resume its session.
        #expect(serial.tlsSessionsResumed == 9)

        // In parallel: the first connections (at most 3) start before any session exists; all later ones, on any of
        // the client's easy handles, resume one.
        let parallel = try makeClient(
            agent: "ContactBox/parallel", caFile: certificates.authority, caPath: nil, maxConcurrent: 3)
        #expect(try Self.putCards(parallel, book, count: 30) == Array(repeating: 201, count: 30))
        #expect(parallel.connectionsOpened == 30)
        #expect(parallel.tlsSessionsResumed >= 27, "\(parallel.tlsSessionsResumed) of 30 resumed")
        #expect(server.waitForLog(containing: "card-29.vcf"))
        #expect(server.loggedRequests().filter { $0.contains("ContactBox/parallel") }.count == 30)
    }

    @Test("over HTTP/2 (Radicale under hypercorn) one connection carries every request, in a row or in parallel")
    func oneConnectionOverHTTP2() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .trusted(hypercorn: true), logRequests: true)
        try server.createAddressBook()
        let book = server.addressBookURL()

        let serial = try makeClient(agent: "ContactBox/serial", caFile: certificates.authority, caPath: nil)
        for _ in 0..<10 {
            let (response, _) = try serial.send(
                HTTPRequest(method: "PROPFIND", url: book, headers: [HTTPHeader("Depth", "0")]))
            #expect(response.status == 207)
        }
        #expect(serial.requestCounts["PROPFIND"] == 10)
        #expect(serial.connectionsOpened == 1)

        let parallel = try makeClient(
            agent: "ContactBox/parallel", caFile: certificates.authority, caPath: nil, maxConcurrent: 3)
        #expect(try Self.putCards(parallel, book, count: 30) == Array(repeating: 201, count: 30))
        #expect(parallel.connectionsOpened == 1)
        #expect(server.waitForLog(containing: "card-29.vcf"))
        let logged = server.loggedRequests().filter { $0.contains("ContactBox/parallel") }
        #expect(logged.count == 30)
        #expect(logged.allSatisfy { $0.contains("HTTP/2") }, "\(logged.first ?? "")")
    }

    @Test("over HTTP/2, requests pipelined as a sync does: the next sent at the last one's head, each body whole")
    func pipelinedOverHTTP2() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .trusted(hypercorn: true), logRequests: true)
        try server.createAddressBook()
        let book = server.addressBookURL()
        let client = try makeClient(agent: "ContactBox/pipelined", caFile: certificates.authority, caPath: nil)
        #expect(try Self.putCards(client, book, count: 20) == Array(repeating: 201, count: 20))

        var bodies = Array(repeating: [UInt8](), count: 20)
        func started(_ index: Int) -> PendingRequest {
            client.start(HTTPRequest(method: "GET", url: book + "card-\(index).vcf")) { bodies[index] += $0 }
        }
        var current = started(0)
        for index in 0..<20 {
            client.awaitHead(current)
            let following = index + 1 < 20 ? started(index + 1) : nil
            #expect(try client.finish(current).status == 200)
            if let following { current = following }
        }
        for (index, body) in bodies.enumerated() {
            #expect(String(decoding: body, as: UTF8.self).contains("UID:card-\(index)\r\n"), "card \(index)")
        }
        // One connection: each held answer is a stream of it (over HTTP/1.1 the next needs a connection of its own).
        #expect(client.connectionsOpened == 1)
    }
}

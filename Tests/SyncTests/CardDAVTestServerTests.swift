import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The real CardDAV test servers (Radicale, Xandikos, Cyrus)", .serialized, .timeLimit(.minutes(10)))
struct CardDAVTestServerTests {
    static let card = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:harness-1\r
        FN:Ada Lovelace\r
        N:Lovelace;Ada;;;\r
        END:VCARD\r

        """

    /// Over every kind, not only the available ones (which the other suites take): a server that cannot run here
    /// fails this test once, saying why, instead of silently shrinking the suites.
    @Test(
        "each starts on 127.0.0.1 in a private folder, stores and serves a card, and stops by PID",
        arguments: TestServerKind.allCases)
    func lifecycle(kind: TestServerKind) throws {
        if let reason = kind.unavailableReason {
            Issue.record("\(kind) cannot run here: \(reason)")
            return
        }
        let server = try kind.start()
        #expect(server.baseURL.hasPrefix("http://127.0.0.1:"))
        #expect(server.addressBookURL.hasPrefix(server.baseURL))
        let put = try server.request(
            "PUT", server.itemURL("ada.vcf"), body: Self.card, contentType: "text/vcard; charset=utf-8",
            headers: ["If-None-Match: *"])
        #expect(put.status == 201, "\(put.body)")
        if server.requiresAuthentication {
            #expect(try server.request("GET", server.itemURL("ada.vcf"), authenticated: false).status == 401)
        }
        let get = try server.request("GET", server.itemURL("ada.vcf"))
        #expect(get.status == 200)
        #expect(get.body.contains("FN:Ada Lovelace"))

        try server.seed((0..<3).map { ("s\($0).vcf", Self.card.replacing("harness-1", with: "seeded-\($0)")) })
        let items = try server.items()
        #expect(items.count == 4)
        #expect(items.contains { $0.href.hasSuffix("/ada.vcf") && $0.vcard.contains("UID:harness-1") })
        #expect(items.allSatisfy { $0.etag != nil })

        let pid = try #require(server.processIdentifier)
        server.stop()
        #expect(!server.isRunning)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the server's process is gone")
        if kind == .cyrus {
            #expect(kill(-pid, 0) == -1 && errno == ESRCH, "master's children (httpd, imapd) are gone too")
        }
    }
}

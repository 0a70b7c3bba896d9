import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "The shared Radicale test server",
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct RadicaleServerTests {
    static let card = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:radicale-harness-1\r
        FN:Ada Lovelace\r
        N:Lovelace;Ada;;;\r
        END:VCARD\r

        """

    @Test("it starts, takes a card into a new address book, comes back on the same port, and stops by PID")
    func lifecycle() throws {
        let server = try RadicaleServer()
        try server.createAddressBook()
        let url = server.addressBookURL() + "ada.vcf"
        let put = try server.request(
            "PUT", url, body: Self.card, contentType: "text/vcard; charset=utf-8", headers: ["If-None-Match: *"])
        #expect(put.status == 201)
        #expect(try server.request("PUT", url, body: Self.card, contentType: "text/vcard", user: nil).status == 401)
        #expect(try server.request("GET", url, password: "wrong").status == 401)

        let first = try #require(server.processIdentifier)
        server.stop()
        #expect(kill(first, 0) == -1 && errno == ESRCH)

        try server.seedCards([("bob.vcf", Self.card.replacing("radicale-harness-1", with: "b"))])
        try server.start()
        let get = try server.request("GET", url)
        #expect(get.status == 200)
        #expect(get.body.contains("FN:Ada Lovelace"))
        #expect(try server.request("GET", server.addressBookURL() + "bob.vcf").status == 200)

        let second = try #require(server.processIdentifier)
        server.stop()
        #expect(kill(second, 0) == -1 && errno == ESRCH)
        #expect(!server.isRunning)
    }
}

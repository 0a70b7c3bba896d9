import Testing

@testable import HTTP

@Suite("Where credentials may follow a redirect")
struct RedirectPolicyTests {
    func parts(_ url: String) throws -> URLParts {
        try #require(URLParts(url))
    }

    @Test("The same scheme, host and port keep credentials")
    func sameOrigin() throws {
        #expect(
            RedirectPolicy.mayForwardCredentials(
                from: try parts("https://dav.example.com/a"), to: try parts("https://DAV.example.com:443/b")))
    }

    @Test("iCloud's partition redirect keeps credentials")
    func sameParentDomain() throws {
        #expect(
            RedirectPolicy.mayForwardCredentials(
                from: try parts("https://contacts.icloud.com/"), to: try parts("https://p42-contacts.icloud.com/123/")))
    }

    @Test("Another domain, another port of the same host, or an IP address drop credentials")
    func otherHosts() throws {
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("https://contacts.icloud.com/"), to: try parts("https://icloud.evil.com/")))
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("http://127.0.0.1:8080/"), to: try parts("http://127.0.0.2:8080/")))
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("http://10.0.0.1/"), to: try parts("http://192.168.0.1/")))
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("http://127.0.0.1:8080/"), to: try parts("http://127.0.0.1:8081/")))
    }

    @Test("https never goes down to http with credentials, even on the same host")
    func noDowngrade() throws {
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("https://dav.example.com/"), to: try parts("http://dav.example.com/")))
        #expect(
            !RedirectPolicy.mayForwardCredentials(
                from: try parts("https://contacts.icloud.com/"), to: try parts("http://p42-contacts.icloud.com/")))
    }

    @Test("303 turns a request into a body-less GET; 307 and 308 keep method and body")
    func methods() {
        #expect(RedirectPolicy.nextMethod(after: 303, method: "PUT") == ("GET", false))
        #expect(RedirectPolicy.nextMethod(after: 307, method: "PROPFIND") == ("PROPFIND", true))
        #expect(RedirectPolicy.nextMethod(after: 308, method: "PUT") == ("PUT", true))
        #expect(RedirectPolicy.isFollowed(301) && !RedirectPolicy.isFollowed(304) && !RedirectPolicy.isFollowed(300))
    }

    @Test("URLs are shown without user info")
    func userInfoIsRedacted() {
        #expect(redactingUserInfo("https://user:secret@host.example/p?q=1") == "https://host.example/p?q=1")
        #expect(redactingUserInfo("https://host.example/a@b") == "https://host.example/a@b")
    }
}

import Testing

@testable import HTTP

@Suite("Where credentials and contacts may follow a redirect")
struct RedirectPolicyTests {
    func allowed(_ from: String, _ to: String) -> Bool {
        OriginPolicy.refusal(from: from, to: to) == nil
    }

    @Test("The same scheme, host and port: followed")
    func sameOrigin() {
        #expect(allowed("https://dav.example.com/a", "https://DAV.example.com:443/b"))
        #expect(allowed("http://127.0.0.1:5232/", "http://127.0.0.1:5232/alice/"))
    }

    @Test("iCloud's partition redirect, an https host of the same site by the public suffix list: followed")
    func sameSite() {
        #expect(allowed("https://contacts.icloud.com/", "https://p42-contacts.icloud.com/123/"))
        #expect(allowed("https://dav.example.co.uk/", "https://p1.example.co.uk/"))
    }

    @Test("Another site, two sites under one public suffix, another port, an IP literal: refused, saying why")
    func otherPlaces() {
        #expect(
            OriginPolicy.refusal(from: "https://contacts.icloud.com/", to: "https://icloud.evil.com/")
                == "it goes to another site")
        #expect(!allowed("https://a.github.io/", "https://b.github.io/"))
        #expect(!allowed("https://example.co.uk/", "https://evil.co.uk/"))
        #expect(
            OriginPolicy.refusal(from: "http://127.0.0.1:8080/", to: "http://127.0.0.1:8081/")
                == "it goes to another port")
        #expect(!allowed("http://127.0.0.1:8080/", "http://127.0.0.2:8080/"))
        #expect(!allowed("https://127.0.0.1/", "https://127.0.0.2/"))
        #expect(!allowed("https://dav.example.com/", "https://[::1]/"))
        #expect(!allowed("http://dav.example.com/", "http://p1.dav.example.com/"))
        #expect(!allowed("https://dav.example.com/", "ftp://dav.example.com/"))
        #expect(!allowed("https://dav.example.com/", "not a url"))
    }

    @Test("https never goes down to http, even on the same host")
    func noDowngrade() {
        #expect(
            OriginPolicy.refusal(from: "https://dav.example.com/", to: "http://dav.example.com/")
                == "it goes from https to plain http")
        #expect(!allowed("https://contacts.icloud.com/", "http://p42-contacts.icloud.com/"))
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

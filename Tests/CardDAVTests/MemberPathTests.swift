import Testing

@testable import CardDAV

@Suite("Server hrefs stay inside the address book")
struct MemberPathTests {
    let book = "https://dav.example.com/dav/alice/book/"

    @Test("a member of the book, however spelled, is its decoded path")
    func members() {
        #expect(DAVURL.memberPath("/dav/alice/book/a.vcf", of: book) == "/dav/alice/book/a.vcf")
        #expect(DAVURL.memberPath("a%40b.vcf", of: book) == "/dav/alice/book/a@b.vcf")
        #expect(DAVURL.memberPath("https://DAV.example.com/dav/alice/book/c.vcf", of: book) == "/dav/alice/book/c.vcf")
        #expect(DAVURL.memberPath("/dav/alice/%62ook/d.vcf", of: book) == "/dav/alice/book/d.vcf")
    }

    @Test("anything else is no member: other users, climbing out, encoded dots and slashes, other hosts")
    func outsiders() {
        for href in [
            "/other/user/card.vcf", "../../etc/x.vcf", "%2e%2e/%2e%2e/enc.vcf", "/dav/alice/book/%2e%2e/x.vcf",
            "/dav/alice/book/a%2Fb.vcf", "/dav/alice/book/sub/c.vcf", "/dav/alice/book/", "/dav/alice/book",
            "https://evil.example/dav/alice/book/x.vcf", "http://dav.example.com/dav/alice/book/x.vcf",
            "https://dav.example.com:8443/dav/alice/book/x.vcf", "/dav/alice/book/x.vcf?delete=1",
            "https://dav.example.com/dav/alice/book/../bob/x.vcf", "/dav/alice/book/%00.vcf",
        ] {
            #expect(DAVURL.memberPath(href, of: book) == nil, "\(href)")
        }
    }

    /// Every href of the two tests above, and a few the fast path must leave to `memberPath`.
    static let hrefs = [
        "/dav/alice/book/a.vcf", "a%40b.vcf", "https://DAV.example.com/dav/alice/book/c.vcf",
        "/dav/alice/%62ook/d.vcf", "/other/user/card.vcf", "../../etc/x.vcf", "%2e%2e/%2e%2e/enc.vcf",
        "/dav/alice/book/%2e%2e/x.vcf", "/dav/alice/book/a%2Fb.vcf", "/dav/alice/book/sub/c.vcf", "/dav/alice/book/",
        "/dav/alice/book", "https://evil.example/dav/alice/book/x.vcf", "http://dav.example.com/dav/alice/book/x.vcf",
        "https://dav.example.com:8443/dav/alice/book/x.vcf", "/dav/alice/book/x.vcf?delete=1",
        "https://dav.example.com/dav/alice/book/../bob/x.vcf", "/dav/alice/book/%00.vcf", "/dav/alice/book/.",
        "/dav/alice/book/..", "/dav/alice/book/...", "/dav/alice/book/x.vcf#top", "/dav/alice/book//x.vcf",
        "/dav/alice/book/a:b.vcf", "/dav/alice/book/Zoë.vcf", "/dav/alice/book/x.vcf/", "//dav.example.com/x.vcf",
    ]

    @Test(
        "the matcher for many hrefs of one book agrees with memberPath, and with sameResource for the book itself",
        arguments: [
            "https://dav.example.com/dav/alice/book/", "https://dav.example.com/dav/alice/book",
            "https://dav.example.com/dav/al%69ce/book/", "https://dav.example.com/", "https://dav.example.com/a//b/",
            "https://dav.example.com/dav/./alice/book/",
        ])
    func matcherAgrees(book: String) {
        let members = DAVURL.Members(of: book)
        let resource = DAVURL.Resource(book)
        for href in Self.hrefs + Self.hrefs.map({ "/dav/alice/book/" + $0 }) {
            #expect(members.path(href) == DAVURL.memberPath(href, of: book), "\(href) in \(book)")
            #expect(
                resource.isNamed(by: href) == DAVURL.sameResource(DAVURL.resolve(href, against: book), book),
                "\(href) in \(book)")
        }
    }
}

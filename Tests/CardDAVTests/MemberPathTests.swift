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
}

import Testing

@testable import CardDAV

@Suite("What goes into a request and comes out of a status line, byte for byte")
struct RequestTextTests {
    @Test("XML escaping covers the five special characters and leaves everything else as it is")
    func escaping() {
        #expect(DAVRequestBody.escape("plain-ünïcödé 日本.vcf") == "plain-ünïcödé 日本.vcf")
        #expect(DAVRequestBody.escape(#"a&b<c>d"e'f"#) == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
        // A combining mark after `&` makes one Character of them; the `&` is escaped all the same.
        #expect(DAVRequestBody.escape("&\u{301}") == "&amp;\u{301}")
        let body = String(
            decoding: DAVRequestBody.multiget(hrefs: ["/b/x&y.vcf", "/b/z.vcf"], version: nil), as: UTF8.self)
        #expect(body.contains("<D:href>/b/x&amp;y.vcf</D:href><D:href>/b/z.vcf</D:href>"))
    }

    @Test("a path is percent-encoded segment by segment; a path that needs nothing is kept as it is")
    func encodedPaths() {
        #expect(DAVURL.encodedPath("/dav/alice/book/a@b.vcf") == "/dav/alice/book/a@b.vcf")
        #expect(DAVURL.encodedPath("/dav/my book/Zoë's card.vcf") == "/dav/my%20book/Zo%C3%AB's%20card.vcf")
        #expect(DAVURL.encodedPath("/a/b%2Fc/?#") == "/a/b%252Fc/%3F%23")
    }

    @Test("the status code is the second word of a status line, three digits, or nothing")
    func statusCodes() {
        #expect(ElementTracker.statusCode("HTTP/1.1 200 OK") == 200)
        #expect(ElementTracker.statusCode("  HTTP/1.1   404   Not Found ") == 404)
        #expect(ElementTracker.statusCode("HTTP/1.1 423") == 423)
        #expect(ElementTracker.statusCode("HTTP/1.1 2000 OK") == nil)
        #expect(ElementTracker.statusCode("HTTP/1.1 2x0 OK") == nil)
        #expect(ElementTracker.statusCode("HTTP/1.1 ２００ OK") == nil)
        #expect(ElementTracker.statusCode("200") == nil)
        #expect(ElementTracker.statusCode("") == nil)
    }
}

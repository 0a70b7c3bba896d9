import HTTP
import Testing

@testable import CardDAV

@Suite("Error classification")
struct ErrorClassificationTests {
    let now = 1_700_000_000

    func classify(_ status: Int, retryAfter: String? = nil, body: String = "") -> CardDAVError {
        CardDAVError.from(
            status: status, method: "PUT", url: "https://alice:pw@dav.example/books/a.vcf?x=1", retryAfter: retryAfter,
            body: Array(body.utf8)[...], now: now)
    }

    @Test(
        "Statuses map to kinds",
        arguments: [
            (400, CardDAVError.Kind.rejected(status: 400)), (401, .unauthorized), (403, .unauthorized),
            (404, .notFound), (405, .rejected(status: 405)), (409, .rejected(status: 409)), (410, .notFound),
            (412, .preconditionFailed), (413, .rejected(status: 413)), (415, .rejected(status: 415)),
            (423, .locked(retryAfter: nil)), (429, .rateLimited(retryAfter: nil)), (500, .serverError(status: 500)),
            (502, .serverError(status: 502)),
            (503, .rateLimited(retryAfter: nil)), (507, .serverError(status: 507)),
        ])
    func statuses(status: Int, kind: CardDAVError.Kind) {
        #expect(classify(status).kind == kind)
    }

    @Test("Retry-After in seconds and as an HTTP-date")
    func retryAfter() {
        #expect(classify(429, retryAfter: "120").kind == .rateLimited(retryAfter: .seconds(120)))
        #expect(classify(503, retryAfter: " 7 ").kind == .rateLimited(retryAfter: .seconds(7)))
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(
            classify(503, retryAfter: "Tue, 14 Nov 2023 22:15:00 GMT").kind == .rateLimited(retryAfter: .seconds(100)))
        #expect(
            classify(503, retryAfter: "Tuesday, 14-Nov-23 22:15:00 GMT").kind == .rateLimited(retryAfter: .seconds(100))
        )
        #expect(classify(503, retryAfter: "Tue Nov 14 22:15:00 2023").kind == .rateLimited(retryAfter: .seconds(100)))
        #expect(
            classify(429, retryAfter: "Mon, 13 Nov 2023 00:00:00 GMT").kind == .rateLimited(retryAfter: .seconds(0)))
        #expect(classify(429, retryAfter: "soon").kind == .rateLimited(retryAfter: nil))
    }

    @Test("Google's quota 403 with a JSON body is rate limiting, a plain 403 is not")
    func googleQuota() {
        let json = #"{"error": {"code": 403, "message": "Quota exceeded for quota metric 'Read requests'"}}"#
        #expect(classify(403, body: json).kind == .rateLimited(retryAfter: nil))
        #expect(classify(403, body: "<html>quota</html>").kind == .unauthorized)
        #expect(classify(403, body: #"{"error": "forbidden"}"#).kind == .unauthorized)
    }

    @Test("valid-sync-token decides, not the status; a cut-off body still counts")
    func syncToken() {
        for status in [403, 409, 412] {
            #expect(classify(status, body: RadicaleFixtures.invalidSyncToken).kind == .invalidSyncToken)
        }
        #expect(classify(403, body: #"<d:error xmlns:d="DAV:"><d:valid-sync-token/><d:bro"#).kind == .invalidSyncToken)
        #expect(
            classify(412, body: #"<d:error xmlns:d="DAV:"><d:no-uid-conflict/></d:error>"#).kind == .preconditionFailed)
    }

    @Test("Messages name method, path and status, never the body, the query or the credentials")
    func messages() {
        let error = classify(412, body: "BEGIN:VCARD secret stuff")
        #expect(error.message == "PUT /books/a.vcf?x=1: 412 Precondition Failed")
        #expect(!error.message.contains("pw"))
        #expect(classify(429, retryAfter: "3").message.hasSuffix("(retry after 3 s)"))
        #expect("\(classify(404))" == "PUT /books/a.vcf?x=1: 404 Not Found")
    }
}

@Suite("Href and URL resolution")
struct DAVURLTests {
    @Test(
        "Hrefs resolve against the request URL (RFC 3986 5.2)",
        arguments: [
            ("/alice/book/a.vcf", "http://h:5232/alice/book/", "http://h:5232/alice/book/a.vcf"),
            ("a.vcf", "http://h/alice/book/", "http://h/alice/book/a.vcf"),
            ("a.vcf", "http://h/alice/book", "http://h/alice/a.vcf"),
            ("../other/", "http://h/alice/book/", "http://h/alice/other/"),
            ("./x/./y/../z", "http://h/a/", "http://h/a/x/z"),
            ("https://p42.example:443/x/", "https://h/", "https://p42.example:443/x/"),
            ("//cdn.example/x", "https://h/a", "https://cdn.example/x"),
            ("/a%20b.vcf", "https://user:pw@h/", "https://h/a%20b.vcf"),
            ("", "http://h/book/", "http://h/book/"),
        ])
    func resolve(href: String, base: String, expected: String) {
        #expect(DAVURL.resolve(href, against: base) == expected)
    }

    @Test("Same resource ignores a trailing slash and percent-encoding of the path")
    func sameResource() {
        #expect(DAVURL.sameResource("http://h/alice/book", "http://h/alice/book/"))
        #expect(DAVURL.sameResource("http://h/alice/my%20book/", "http://h/alice/my book/"))
        #expect(DAVURL.sameResource("HTTP://H/x/", "http://h/x/"))
        #expect(!DAVURL.sameResource("http://h/alice/book/", "http://h/alice/book/a.vcf"))
    }

    @Test("Path of a URL drops scheme, host and credentials")
    func path() {
        #expect(DAVURL.path(of: "https://u:p@h:8443/a/b?c") == "/a/b?c")
        #expect(DAVURL.path(of: "https://h") == "/")
    }

    @Test("Segments are percent-encoded except pchar")
    func encoding() {
        #expect(DAVURL.encodeSegment("a b/c%é@+.vcf") == "a%20b%2Fc%25%C3%A9@+.vcf")
    }
}

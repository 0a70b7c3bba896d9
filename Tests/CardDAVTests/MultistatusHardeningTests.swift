import Testing

@testable import CardDAV

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Multistatus parser hardening")
struct MultistatusHardeningTests {
    @Test("Billion laughs: entities are never expanded, the document stays small")
    func billionLaughs() throws {
        var declarations = #"<!ENTITY lol0 "lollollollollollollollollollol">"#
        for level in 1...9 {
            let references = String(repeating: "&lol\(level - 1);", count: 10)
            declarations += "\n<!ENTITY lol\(level) \"\(references)\">"
        }
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE multistatus [
            \(declarations)
            ]>
            <multistatus xmlns="DAV:"><response><href>/a&lol9;</href><propstat><prop><getetag>&lol9;</getetag>\
            </prop></propstat></response></multistatus>
            """
        var responses: [MultistatusResponse] = []
        let before = residentBytes()
        let parser = MultistatusParser { responses.append($0) }
        // Undeclared (never stored) entities are a well-formedness error, not 3 GB of "lol".
        let error = try #require(throws: CardDAVError.self) {
            try parser.feed(text)
            try parser.finish()
        }
        #expect(error.kind == .malformedResponse)
        #expect(error.message.contains("entities are refused"), "\(error.message)")
        #expect(responses.allSatisfy { $0.href.utf8.count < 100 })
        #expect(residentBytes() - before < 64 << 20, "expanded, it would be 3 GB")
    }

    @Test("External entities and DTDs are not fetched: the network is never used")
    func noNetwork() throws {
        let listener = try Listener()
        let url = "http://127.0.0.1:\(listener.port)"
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE multistatus SYSTEM "\(url)/external.dtd" [
            <!ENTITY xxe SYSTEM "\(url)/secret">
            <!ENTITY % remote SYSTEM "\(url)/parameter">
            ]>
            <multistatus xmlns="DAV:"><response><href>/a&xxe;</href></response></multistatus>
            """
        // The first entity declaration refuses the document, before anything could be fetched.
        var hrefs: [String] = []
        let parser = MultistatusParser { hrefs.append($0.href) }
        let error = try #require(throws: CardDAVError.self) {
            try parser.feed(text)
            try parser.finish()
        }
        #expect(error.message.contains("entities are refused"), "\(error.message)")
        #expect(hrefs.isEmpty)
        #expect(listener.connectionAttempts() == 0)
        // And the port from the brief, where nobody listens: no attempt, so nothing fails to connect either.
        let other = MultistatusParser { _ in }
        #expect(throws: CardDAVError.self) {
            try other.feed(text.replacing(url, with: "http://127.0.0.1:1"))
            try other.finish()
        }
    }

    @Test("100,000 responses streamed in chunks are all delivered, in flat memory")
    func hundredThousandResponses() throws {
        let count = 100_000
        var seen = 0
        var lastHref = ""
        var residentAtStart = 0
        var residentPeak = 0
        let parser = MultistatusParser { response in
            seen += 1
            lastHref = response.href
            precondition(response.properties.addressData?.utf8.count ?? 0 > 1000)
            if seen == 5_000 { residentAtStart = residentBytes() }
            if seen > 5_000, seen % 5_000 == 0 { residentPeak = max(residentPeak, residentBytes()) }
        }
        let note = String(repeating: "n", count: 1_000)
        var chunk =
            #"<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" "#
            + #"xmlns:c="urn:ietf:params:xml:ns:carddav">"#
        var fed = 0
        for index in 0..<count {
            chunk += """
                <d:response><d:href>/book/\(index).vcf</d:href><d:propstat><d:prop><d:getetag>"\(index)"</d:getetag>\
                <c:address-data>BEGIN:VCARD&#13;
                VERSION:3.0&#13;
                UID:\(index)&#13;
                NOTE:\(note)&#13;
                END:VCARD&#13;
                </c:address-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
                """
            if chunk.utf8.count > 64 << 10 {
                fed += chunk.utf8.count
                try parser.feed(chunk)
                chunk = ""
            }
        }
        chunk += "<d:sync-token>done</d:sync-token></d:multistatus>"
        fed += chunk.utf8.count
        try parser.feed(chunk)
        let summary = try parser.finish()
        #expect(seen == count)
        #expect(summary.responseCount == count)
        #expect(summary.syncToken == "done")
        #expect(lastHref == "/book/99999.vcf")
        #expect(fed > 100 << 20)
        // The document is over 100 MB, its cards alone 100 MB: kept, they would grow the process by 95 MB from the
        // 5,000th on. The resident set is the whole process's, so the bound leaves room for the other tests running
        // meanwhile (a browser test's screenshots, servers' answers: up to 43 MB seen at 2 cores).
        #expect(residentPeak - residentAtStart < 64 << 20, "grew \(residentPeak - residentAtStart) bytes")
    }
}

/// This process's resident set size, from /proc/self/statm.
func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard
        withUnsafeMutablePointer(
            to: &size,
            { sizePointer in
                withUnsafeMutablePointer(to: &resident) { residentPointer in
                    withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
                }
            }) == 2
    else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// A TCP socket listening on a free loopback port, to tell whether anything tried to connect.
final class Listener {
    struct Failure: Error {}

    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw Failure() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard ok else {
            close(descriptor)
            throw Failure()
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Connections waiting to be accepted (each is accepted and closed).
    func connectionAttempts() -> Int {
        var count = 0
        while case let client = accept(descriptor, nil, nil), client >= 0 {
            close(client)
            count += 1
        }
        return count
    }

    deinit {
        close(descriptor)
    }
}

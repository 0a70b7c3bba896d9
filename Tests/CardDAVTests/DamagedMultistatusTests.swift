import Testing

@testable import CardDAV

/// Bytes that are not UTF-8, ETags that cannot be sent back, DTDs, deep nesting and compressed bodies: each costs
/// the one response it is in, or is refused with a message that says what the server did.
@Suite("A multistatus with damaged parts")
struct DamagedMultistatusTests {
    static func response(_ href: [UInt8], etag: [UInt8] = Array("\"e\"".utf8), card: [UInt8]? = nil) -> [UInt8] {
        let data = card.map { Array("<C:address-data>".utf8) + $0 + Array("</C:address-data>".utf8) } ?? []
        return Array("<response><href>".utf8) + href + Array("</href><propstat><prop><getetag>".utf8) + etag
            + Array("</getetag>".utf8) + data
            + Array("</prop><status>HTTP/1.1 200 OK</status></propstat></response>".utf8)
    }

    static func document(_ responses: [[UInt8]], declaration: String = "<?xml version='1.0' encoding='utf-8'?>")
        -> [UInt8]
    {
        Array((declaration + "<multistatus xmlns='DAV:' xmlns:C='urn:ietf:params:xml:ns:carddav'>").utf8)
            + responses.joined() + Array("</multistatus>".utf8)
    }

    static func card(_ name: [UInt8]) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:".utf8) + name + Array("\r\nEND:VCARD\r\n".utf8)
    }

    /// Parses `bytes` fed in chunks of `chunk` bytes, so that damage falls across chunk boundaries too.
    static func parse(_ bytes: [UInt8], chunk: Int = 1 << 20) throws -> [MultistatusResponse] {
        var responses: [MultistatusResponse] = []
        let parser = MultistatusParser { responses.append($0) }
        var start = 0
        while start < bytes.count {
            try parser.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
            start += chunk
        }
        try parser.finish()
        return responses
    }

    @Test(
        "bytes that are not UTF-8 mark their own response and element only, at any chunk size",
        arguments: [1, 2, 3, 7, 1 << 20])
    func damageStaysInItsResponse(chunk: Int) throws {
        let body = Self.document([
            Self.response(Array("/b/1.vcf".utf8), card: Self.card(Array("One".utf8))),
            Self.response(Array("/b/2.vcf".utf8), card: Self.card([0x42, 0xE9, 0x74, 0xE9])),
            Self.response([0x2F, 0x62, 0x2F, 0xFF, 0x2E, 0x76, 0x63, 0x66]),
            Self.response(Array("/b/4.vcf".utf8), etag: [0x22, 0xC3, 0x22]),
            Self.response(Array("/b/5.vcf".utf8), card: Self.card(Array("Fünf \u{FFFD}".utf8))),
            Self.response(Array("/b/6.vcf".utf8), card: Self.card([0x53, 0x01, 0x78])),
            Self.response(Array("/b/7.vcf".utf8), card: Self.card(Array("Vertical&#x0B;Tab &#1;".utf8))),
            Self.response(Array("/b/8.vcf".utf8), card: Self.card(Array("Good &#xE9; &#233; &amp; &#x1F600;".utf8))),
        ])
        let responses = try Self.parse(body, chunk: chunk)
        #expect(
            responses.map(\.damaged) == [
                [], ["address-data"], ["href"], ["getetag"], [], ["address-data"], ["address-data"], [],
            ])
        #expect(responses[7].properties.addressData?.contains("Good é é & 😀") == true)
        #expect(responses[0].properties.addressData?.contains("FN:One") == true)
        #expect(responses[1].href == "/b/2.vcf")
        // A U+FFFD the server really sent is no damage.
        #expect(responses[4].properties.addressData?.contains("Fünf \u{FFFD}") == true)
        #expect(responses[5].href == "/b/6.vcf")
    }

    @Test("a document in another encoding is left to libxml2, not repaired")
    func otherEncodingsPassThrough() throws {
        let body = Self.document(
            [Self.response(Array("/b/1.vcf".utf8), card: Self.card([0x42, 0xE9]))],
            declaration: "<?xml version='1.0' encoding='ISO-8859-1'?>")
        let responses = try Self.parse(body, chunk: 5)
        #expect(responses.map(\.damaged) == [[]])
        #expect(responses[0].properties.addressData?.contains("FN:Bé") == true)
    }

    @Test("the repair replaces maximal subparts, keeps sequences cut by chunks, and forbids XML's noncharacters")
    func repairRules() {
        func repaired(_ bytes: [UInt8], chunk: Int) -> ([UInt8], Int) {
            var repair = UTF8Repair()
            var output: [UInt8] = []
            var start = 0
            while start < bytes.count {
                let slice = Array(bytes[start..<min(start + chunk, bytes.count)])
                output += slice.withUnsafeBytes { repair.repair($0, final: false) }
                start += chunk
            }
            output += repair.repair(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            return (output, repair.takeDamage(before: Int.max))
        }
        let fffd: [UInt8] = [0xEF, 0xBF, 0xBD]
        for chunk in [1, 2, 100] {
            let head = Array("<a>".utf8)
            #expect(repaired(head + Array("é€😀".utf8), chunk: chunk) == (head + Array("é€😀".utf8), 0))
            #expect(repaired(head + [0xE2, 0x82, 0x41], chunk: chunk) == (head + fffd + [0x41], 1))
            #expect(repaired(head + [0xED, 0xA0, 0x80], chunk: chunk) == (head + fffd + fffd + fffd, 3))
            #expect(repaired(head + [0xEF, 0xBF, 0xBE, 0x00], chunk: chunk) == (head + fffd + fffd, 2))
            #expect(repaired(head + [0xF0, 0x9F, 0x98], chunk: chunk) == (head + fffd, 1))
            let entity = Array("&#xFFFD;".utf8)
            #expect(
                repaired(head + Array("a&#x0b;b&#0;&#65;&amp;".utf8), chunk: chunk)
                    == (head + Array("a".utf8) + entity + Array("b".utf8) + entity + Array("&#65;&amp;".utf8), 2))
            #expect(
                repaired(head + Array("&#xD800;&#12".utf8), chunk: chunk) == (head + entity + Array("&#12".utf8), 1))
        }
    }

    @Test("the repair finds a bad byte or reference at every offset of the plain text it reads eight bytes at a time")
    func repairAtEveryOffset() {
        func repaired(_ bytes: [UInt8]) -> ([UInt8], Int) {
            var repair = UTF8Repair()
            var output = bytes.withUnsafeBytes { repair.repair($0, final: false) }
            output += repair.repair(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            return (output, repair.takeDamage(before: Int.max))
        }
        let head = Array("<a>".utf8)
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789 <>/\t\r\n~\u{7F}".utf8)
        #expect(repaired(head + plain + plain) == (head + plain + plain, 0))
        for offset in 0..<24 {
            let before = Array(repeating: UInt8(ascii: "x"), count: offset)
            let after = Array(repeating: UInt8(ascii: "y"), count: 17)
            // A control XML forbids, a byte that is no UTF-8, a reference to a forbidden character: each one found.
            #expect(repaired(head + before + [0x0B] + after) == (head + before + [0xEF, 0xBF, 0xBD] + after, 1))
            #expect(repaired(head + before + [0xFF] + after) == (head + before + [0xEF, 0xBF, 0xBD] + after, 1))
            let entity = Array("&#xFFFD;".utf8)
            #expect(repaired(head + before + Array("&#1;".utf8) + after) == (head + before + entity + after, 1))
            // Good text that is not plain ASCII passes as it is.
            let good = head + before + Array("é&amp;".utf8) + after
            #expect(repaired(good) == (good, 0))
        }
    }

    @Test("an entity is refused as such, not as an undefined one; a DTD without entities is read")
    func dtdRefused() throws {
        let body = Array(
            "<?xml version='1.0'?><!DOCTYPE m [<!ENTITY lol9 'lol'>]><multistatus xmlns='DAV:'>&lol9;</multistatus>"
                .utf8)
        let error = try #require(throws: CardDAVError.self) { try Self.parse(body) }
        #expect(error.message.contains("<!ENTITY>") && error.message.contains("refused"), "\(error.message)")
        let plain = Array("<?xml version='1.0'?><!DOCTYPE m><multistatus xmlns='DAV:'></multistatus>".utf8)
        #expect(try Self.parse(plain).isEmpty)
        let undeclared = Array("<multistatus xmlns='DAV:'><response><href>&lol9;</href></response></multistatus>".utf8)
        let second = try #require(throws: CardDAVError.self) { try Self.parse(undeclared) }
        #expect(second.message.contains("entities are refused"), "\(second.message)")
    }

    @Test("nesting deeper than the limit is refused and says so")
    func tooDeep() throws {
        let depth = MultistatusParser.Limits.maxDepth + 1
        let body = Array(
            ("<multistatus xmlns='DAV:'>" + String(repeating: "<x>", count: depth)
                + String(repeating: "</x>", count: depth)
                + "</multistatus>").utf8)
        let error = try #require(throws: CardDAVError.self) { try Self.parse(body) }
        #expect(error.message.contains("nested more than"), "\(error.message)")
    }

    @Test("an ETag with control characters is never sent back, and a multiget item with one fails alone")
    func controlCharactersInETags() throws {
        #expect(DAVETag.problem("\"abc\"") == nil && DAVETag.problem("W/\"a-gzip\"") == nil)
        #expect(DAVETag.problem("\"a\r\nX-Injected: 1\"") != nil && DAVETag.problem("\"a\u{1}\"") != nil)
        let item = CardDAVClient.item(
            MultistatusResponse(
                href: "/b/1.vcf",
                propstats: [
                    Propstat(
                        status: 200,
                        properties: {
                            var properties = DAVProperties()
                            properties.etag = "\"a\r\nX-Injected: 1\""
                            properties.addressData = "BEGIN:VCARD\r\nEND:VCARD\r\n"
                            return properties
                        }())
                ]), path: "/b/")
        guard case .failed(let error) = item.outcome else {
            Issue.record("an ETag with CR LF was taken: \(item.outcome)")
            return
        }
        #expect(error.message.contains("/b/1.vcf") && error.message.contains("control characters"))
        #expect(throws: CardDAVError.self) { try CardDAVClient.checkIfMatch("\"a\r\nb\"", method: "PUT", url: "/b/1") }
    }
}

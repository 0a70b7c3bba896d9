import Testing
import VCard

@testable import CardDAV

/// Parses a whole body, fed in chunks of `chunkSize` bytes.
func parseMultistatus(_ text: String, chunkSize: Int = 1 << 20) throws -> ([MultistatusResponse], MultistatusSummary) {
    var responses: [MultistatusResponse] = []
    let parser = MultistatusParser { responses.append($0) }
    let bytes = Array(text.utf8)
    var start = 0
    while start < bytes.count {
        try parser.feed(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
        start += chunkSize
    }
    let summary = try parser.finish()
    return (responses, summary)
}

@Suite("Multistatus parser")
struct MultistatusParserTests {
    @Test("Radicale's home listing yields the address book with its name, reports and versions")
    func radicaleHomeListing() throws {
        let (responses, summary) = try parseMultistatus(RadicaleFixtures.homeListing)
        #expect(summary.rootElement == "multistatus")
        #expect(responses.map(\.href) == ["/alice/", "/alice/book/"])
        let principal = responses[0].properties
        #expect(principal.isCollection && !principal.isAddressBook)
        #expect(principal.displayName == nil, "a 404 propstat is not merged")
        let book = responses[1].properties
        #expect(book.isAddressBook && book.isCollection)
        #expect(book.displayName == "Family")
        #expect(book.supportedReports == ["expand-property", "sync-collection", "addressbook-multiget"])
        #expect(book.supportedAddressData == [AddressDataType(contentType: "text/vcard", version: "3.0")])
    }

    @Test("Radicale's root and principal give the current user principal and the home set")
    func radicalePrincipal() throws {
        let (root, _) = try parseMultistatus(RadicaleFixtures.rootPropfind)
        #expect(root[0].properties.currentUserPrincipal == "/alice/")
        #expect(root[0].properties.addressBookHomeSet.isEmpty)
        #expect(root[0].propstats.map(\.status) == [200, 404])
        let (principal, _) = try parseMultistatus(RadicaleFixtures.principalPropfind)
        #expect(principal[0].properties.addressBookHomeSet == ["/alice/"])
    }

    @Test("Pretty-printed SabreDAV XML with prefixes gives trimmed values and every address-data type")
    func sabreHome() throws {
        let (responses, _) = try parseMultistatus(SabreDAVFixtures.addressBookHome)
        #expect(responses.count == 2)
        #expect(responses[1].href == "/remote.php/dav/addressbooks/users/alice/contacts/")
        let book = responses[1].properties
        #expect(book.isAddressBook)
        #expect(book.supportedAddressData.map(\.version) == ["3.0", "4.0", "4.0"])
        #expect(book.supportedAddressData[2].contentType == "application/vcard+json")
    }

    @Test("Feeding one byte at a time gives the same responses as one chunk")
    func byteByByte() throws {
        for fixture in [RadicaleFixtures.homeListing, SabreDAVFixtures.truncatedSync, ICloudFixtures.multiget] {
            let whole = try parseMultistatus(fixture)
            let bytewise = try parseMultistatus(fixture, chunkSize: 1)
            #expect(whole.0 == bytewise.0)
            #expect(whole.1 == bytewise.1)
        }
    }

    @Test("A sync report gives the top-level token and 404 responses")
    func syncReport() throws {
        let (responses, summary) = try parseMultistatus(RadicaleFixtures.syncInitial)
        #expect(summary.syncToken == "http://radicale.org/ns/sync/5aeafdb5")
        #expect(responses[0].properties.etag == #""01a7a958""#)
        #expect(responses[0].status == nil)
        #expect(responses[1].status == 404)
    }

    @Test("A truncated report has a 507 response for the collection and the number-of-matches condition")
    func truncation() throws {
        let (responses, summary) = try parseMultistatus(SabreDAVFixtures.truncatedSync)
        #expect(responses[1].status == 507)
        #expect(responses[1].errorConditions == ["number-of-matches-within-limits"])
        #expect(summary.syncToken == "http://sabre.io/ns/sync/7", "a token after the responses is read too")
        #expect(responses[0].properties.etag == #"W/"weak-1""#)
    }

    @Test("A DAV:error body is read as the root with its conditions")
    func errorRoot() throws {
        let (responses, summary) = try parseMultistatus(RadicaleFixtures.invalidSyncToken)
        #expect(responses.isEmpty)
        #expect(summary.rootElement == "error")
        #expect(summary.hasInvalidSyncToken)
        let (_, sabre) = try parseMultistatus(SabreDAVFixtures.invalidTokenConflict)
        #expect(sabre.errorConditions == ["valid-sync-token", "exception", "message"])
    }

    @Test("address-data keeps character references, escapes and CDATA exactly")
    func addressData() throws {
        let (radicale, _) = try parseMultistatus(RadicaleFixtures.multigetWithMissing)
        #expect(radicale[0].properties.addressData?.contains("FN:One & Only\r\nEND:VCARD\r\n") == true)
        #expect(radicale[1].status == 404)
        let (icloud, _) = try parseMultistatus(ICloudFixtures.multiget)
        #expect(icloud[0].properties.addressData?.contains("FN:Zoë <Z> & co\n") == true)
        #expect(icloud[0].properties.etag == #"W/"C=12@U=34""#)
        #expect(icloud[1].properties.etag == "unquoted-77")
    }

    @Test("Malformed XML is an error with libxml2's line number")
    func malformed() throws {
        let text = "<?xml version=\"1.0\"?>\n<multistatus xmlns=\"DAV:\">\n<response><href>/a</hre></response>"
        let error = try #require(throws: CardDAVError.self) { try parseMultistatus(text) }
        #expect(error.kind == .malformedResponse)
        #expect(error.message.contains("line 3"), "\(error.message)")
        #expect(error.message.contains("mismatch"), "\(error.message)")
    }

    @Test("A body cut off in the middle is an error at the end")
    func truncatedDocument() throws {
        let text = String(RadicaleFixtures.homeListing.prefix(300))
        let error = try #require(throws: CardDAVError.self) { try parseMultistatus(text) }
        #expect(error.kind == .malformedResponse)
    }

    @Test("An empty body is an error")
    func emptyBody() throws {
        #expect(throws: CardDAVError.self) { try parseMultistatus("") }
    }

    @Test("A card over the reader's limit makes only its response an error; the ones around it parse")
    func oversizedAddressData() throws {
        let limit = CardReader.Limits.maxCardBytes
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:big\r\nNOTE:" + String(repeating: "x", count: limit + (1 << 20))
        let text = """
            <multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">\
            <response><href>/a.vcf</href><propstat><prop><getetag>"a"</getetag><C:address-data>A</C:address-data>\
            </prop><status>HTTP/1.1 200 OK</status></propstat></response>\
            <response><href>/big.vcf</href><propstat><prop><getetag>"b"</getetag><C:address-data>\(card)\
            </C:address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response>\
            <response><href>/c.vcf</href><propstat><prop><getetag>"c"</getetag><C:address-data>C</C:address-data>\
            </prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """
        let (responses, _) = try parseMultistatus(text, chunkSize: 64 << 10)
        #expect(responses.map(\.href) == ["/a.vcf", "/big.vcf", "/c.vcf"])
        #expect(responses[1].problem?.hasPrefix("the card is larger than \(limit >> 20) MiB (at least ") == true)
        #expect(responses[1].properties.addressData == nil)
        #expect(responses[1].properties.etag == #""b""#)
        #expect(responses[0].properties.addressData == "A" && responses[2].properties.addressData == "C")
        #expect(responses[0].problem == nil && responses[2].problem == nil)
    }

    @Test("Text outside the wanted elements is skipped, however large")
    func unwantedTextIgnored() throws {
        let filler = String(repeating: "y", count: 3 << 20)
        let text = """
            <multistatus xmlns="DAV:"><response><href>/a</href><responsedescription>\(filler)</responsedescription>\
            <propstat><prop><getlastmodified>\(filler)</getlastmodified><getetag>"e"</getetag></prop></propstat>\
            </response></multistatus>
            """
        let (responses, _) = try parseMultistatus(text, chunkSize: 256 << 10)
        #expect(responses.count == 1)
        #expect(responses[0].problem == nil)
        #expect(responses[0].properties.etag == #""e""#)
    }

    @Test("An error thrown by the response handler stops parsing and comes out unchanged")
    func handlerErrorStops() throws {
        struct Stop: Error {}
        var seen = 0
        let parser = MultistatusParser { _ in
            seen += 1
            throw Stop()
        }
        #expect(throws: Stop.self) {
            try parser.feed(RadicaleFixtures.homeListing)
            try parser.finish()
        }
        #expect(seen == 1)
    }
}

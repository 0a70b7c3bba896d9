import Glibc
import TestSupport
import Testing

/// Deploy/contactbox.avahi.service announces the status page as "ContactBox on <host>" (_http._tcp, port 8080).
@Suite struct AvahiServiceTests {
    static let servicePath = repositoryRoot + "/Deploy/contactbox.avahi.service"
    static let xmllint = findTool("xmllint")

    @Test func announcesTheStatusPage() throws {
        let text = try #require(readFile(Self.servicePath))
        #expect(text.hasPrefix("<?xml "))
        #expect(text.contains("<!DOCTYPE service-group SYSTEM \"avahi-service.dtd\">"))
        #expect(text.contains("<name replace-wildcards=\"yes\">ContactBox on %h</name>"))
        #expect(text.contains("<type>_http._tcp</type>"))
        #expect(text.contains("<port>8080</port>"))
        // A comment may not contain "--": the most common way to break such a file by hand.
        var rest = Substring(text)
        while let start = rest.range(of: "<!--") {
            guard let end = rest[start.upperBound...].range(of: "-->") else {
                Issue.record("unterminated comment")
                break
            }
            #expect(!rest[start.upperBound..<end.lowerBound].contains("--"), "\"--\" inside a comment")
            rest = rest[end.upperBound...]
        }
    }

    @Test(.enabled(if: xmllint != nil, "needs xmllint (package libxml2-utils)"))
    func isWellFormedXML() throws {
        let check = try runCommand(Self.xmllint!, ["--noout", "--nonet", Self.servicePath])
        #expect(check.status == 0, "xmllint: \(check.output)")
        for (xpath, expected) in [
            ("string(/service-group/name)", "ContactBox on %h"),
            ("string(/service-group/name/@replace-wildcards)", "yes"),
            ("string(/service-group/service/type)", "_http._tcp"),
            ("string(/service-group/service/port)", "8080"),
        ] {
            let result = try runCommand(Self.xmllint!, ["--nonet", "--xpath", xpath, Self.servicePath])
            #expect(result.status == 0 && result.output.trimmingSpaces() == expected, "\(xpath): \(result.output)")
        }
    }

    /// The announced port is the one the example configuration's status page listens on (once it has one).
    @Test func portMatchesTheExampleConfiguration() throws {
        let config = readFile(repositoryRoot + "/Deploy/contactbox.example.toml") ?? ""
        var inStatus = false
        for rawLine in config.split(separator: "\n") {
            let line = rawLine.trimmingSpaces()
            if line.hasPrefix("[") { inStatus = line.hasPrefix("[status]") }
            guard inStatus, line.hasPrefix("listen"), let colon = line.lastIndex(of: ":") else { continue }
            let port = line[line.index(after: colon)...].prefix { $0.isNumber }
            #expect(port == "8080", "[status] \(line)")
        }
    }
}

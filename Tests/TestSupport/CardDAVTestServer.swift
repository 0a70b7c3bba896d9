import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The real CardDAV servers the integration suites run against, each started by the test on 127.0.0.1 in a private
/// folder and stopped by PID. Suites take them as Swift Testing arguments: `@Test(arguments: TestServerKind.allCases)`.
public enum TestServerKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Radicale 3.9 from PyPI, in `.venv/` (Deploy/lib/venv.sh).
    case radicale
    /// Xandikos 0.4 from PyPI, in `.venv/` (Deploy/lib/venv.sh).
    case xandikos
    /// Cyrus IMAP 3.6's CardDAV, Debian's `cyrus-imapd` with `cyrus-caldav` (Deploy/test.sh installs them).
    case cyrus

    public var description: String {
        switch self {
        case .radicale: "Radicale"
        case .xandikos: "Xandikos"
        case .cyrus: "Cyrus"
        }
    }

    /// Starts a server of this kind with one empty address book, `addressBookURL`, ready for the user.
    public func start() throws -> any CardDAVTestServer {
        if let unavailableReason { throw TestServerFailure(unavailableReason) }
        return switch self {
        case .radicale: try RadicaleCardDAVServer()
        case .xandikos: try XandikosServer()
        case .cyrus: try CyrusServer()
        }
    }

    /// Why this server cannot run here (not installed), or nil. Deploy/test.sh installs all three.
    public var unavailableReason: String? {
        switch self {
        case .radicale, .xandikos:
            let python = repositoryRoot + "/.venv/bin/python"
            let module = repositoryRoot + "/.venv/bin/" + rawValue
            guard FileManager.default.isExecutableFile(atPath: python),
                FileManager.default.isExecutableFile(atPath: module)
            else { return "no \(description) in \(repositoryRoot)/.venv: run Deploy/test.sh" }
            return nil
        case .cyrus:
            guard FileManager.default.isExecutableFile(atPath: CyrusServer.master) else {
                return "no Cyrus IMAP (\(CyrusServer.master)): run Deploy/test.sh, which installs cyrus-imapd"
            }
            guard getuid() == 0 else { return "Cyrus's master must start as root (it switches to the cyrus user)" }
            return nil
        }
    }

    /// The kinds the suites run against: every one, unless `CONTACTBOX_SKIP_MISSING=1` leaves the missing ones out
    /// (`TestRequirement`). A missing server fails its tests with `unavailableReason`.
    public static var available: [TestServerKind] { allCases.filter(\.runs) }
}

/// One running CardDAV server with one user and one empty address book, as the integration suites see it.
public protocol CardDAVTestServer: AnyObject {
    var kind: TestServerKind { get }
    /// "http://127.0.0.1:PORT/": where discovery starts.
    var baseURL: String { get }
    /// The address book's full URL, ending in "/".
    var addressBookURL: String { get }
    var username: String { get }
    var password: String { get }
    /// Whether a request without credentials is refused (401). Xandikos takes none on plain HTTP.
    var requiresAuthentication: Bool { get }
    /// The process id while the server runs (Cyrus: its master, which leads a process group).
    var processIdentifier: Int32? { get }
    var isRunning: Bool { get }
    /// Stops the server by PID (SIGTERM, then SIGKILL) and waits until it is gone.
    func stop()
    /// The end of the server's log, for a failure message.
    func logTail() -> String
    /// Puts cards into the address book out of band, as fast as the server allows (the default: PUTs in one curl
    /// process, one after the other; Radicale writes its folder).
    func seed(_ cards: [(fileName: String, vcard: String)]) throws
}

public struct TestServerFailure: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// One item as the server serves it: read over HTTP with curl, not through the code under test.
public struct ServerItem: Sendable {
    /// The href's path, as the server wrote it.
    public var href: String
    public var etag: String?
    public var vcard: String
}

extension CardDAVTestServer {
    public var name: String { kind.description }

    /// The URL of an item of the address book.
    public func itemURL(_ fileName: String) -> String {
        addressBookURL + fileName
    }

    /// One request with curl as the server's user (`authenticated: false`: without credentials).
    public func request(
        _ method: String, _ url: String, body: String? = nil, contentType: String? = nil, headers: [String] = [],
        authenticated: Bool = true
    ) throws -> CurlResponse {
        try curlRequest(
            method, url, body: body, contentType: contentType, headers: headers,
            user: authenticated ? (username, password) : nil)
    }

    /// PUTs a card at `fileName` in the address book as another client would (no precondition unless given).
    @discardableResult
    public func put(_ vcard: String, as fileName: String, headers: [String] = []) throws -> CurlResponse {
        let response = try request(
            "PUT", itemURL(fileName), body: vcard, contentType: "text/vcard; charset=utf-8", headers: headers)
        guard (200..<300).contains(response.status) else {
            throw TestServerFailure("\(name): PUT \(fileName) answered \(response.status): \(response.body)")
        }
        return response
    }

    public func delete(_ fileName: String) throws {
        let response = try request("DELETE", itemURL(fileName))
        guard (200..<300).contains(response.status) else {
            throw TestServerFailure("\(name): DELETE \(fileName) answered \(response.status): \(response.body)")
        }
    }

    public func seed(_ cards: [(fileName: String, vcard: String)]) throws {
        try seedByPUT(cards)
    }

    /// PUTs many cards, one after the other (Xandikos refuses overlapping writes), in one curl process.
    public func seedByPUT(_ cards: [(fileName: String, vcard: String)]) throws {
        guard !cards.isEmpty else { return }
        let folder = try TemporaryDirectory()
        var arguments = ["-s", "-S", "--max-time", "600"]
        for (index, card) in cards.enumerated() {
            let file = folder.file("\(index).vcf")
            try card.vcard.write(toFile: file, atomically: false, encoding: .utf8)
            if index > 0 { arguments.append("--next") }
            arguments += [
                "-u", username + ":" + password, "-X", "PUT", "-H", "Content-Type: text/vcard; charset=utf-8",
                "--data-binary", "@" + file, "-o", "/dev/null", "-w", "%{http_code}\n", itemURL(card.fileName),
            ]
        }
        let (status, output) = try runCurl(arguments, input: nil)
        let codes = output.split(separator: "\n").map { Int($0) ?? 0 }
        let failed = zip(cards, codes).filter { !(200..<300).contains($0.1) }
        guard status == 0, codes.count == cards.count, failed.isEmpty else {
            let sample = failed.prefix(3).map { "\($0.0.fileName): \($0.1)" }.joined(separator: ", ")
            throw TestServerFailure(
                "\(name): seeding \(cards.count) cards: curl exit \(status), \(codes.count) answers, failed \(sample)")
        }
    }

    /// Every item of the address book as the server serves it: a PROPFIND for the hrefs and ETags, then one
    /// addressbook-multiget. `version` asks for that vCard version (`address-data version=...`); nil asks for none
    /// (the server's default: Cyrus answers 3.0).
    public func items(version: String? = nil) throws -> [ServerItem] {
        let listing = try request(
            "PROPFIND", addressBookURL,
            body: #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>"#,
            contentType: "application/xml; charset=utf-8", headers: ["Depth: 1"])
        guard listing.status == 207 else {
            throw TestServerFailure("\(name): PROPFIND \(addressBookURL) answered \(listing.status): \(listing.body)")
        }
        let bookPath = URLComponents(string: addressBookURL)?.percentEncodedPath ?? addressBookURL
        let hrefs = try MultistatusReader.parse(listing.body).map(\.href).filter {
            $0 != bookPath && !$0.hasSuffix("/")
        }
        guard !hrefs.isEmpty else { return [] }
        let versionAttribute = version.map { #" content-type="text/vcard" version="\#($0)""# } ?? ""
        let body =
            #"<?xml version="1.0"?><C:addressbook-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">"#
            + #"<D:prop><D:getetag/><C:address-data\#(versionAttribute)/></D:prop>"#
            + hrefs.map { "<D:href>\(xmlEscaped($0))</D:href>" }.joined() + "</C:addressbook-multiget>"
        let report = try request(
            "REPORT", addressBookURL, body: body, contentType: "application/xml; charset=utf-8", headers: ["Depth: 1"])
        guard report.status == 207 else {
            throw TestServerFailure("\(name): multiget answered \(report.status): \(report.body)")
        }
        return try MultistatusReader.parse(report.body).compactMap { response in
            response.addressData.map { ServerItem(href: response.href, etag: response.etag, vcard: $0) }
        }
    }
}

// MARK: - curl

/// What curl got: the status and the body.
public struct CurlResponse: Sendable {
    public var status: Int
    public var body: String
    /// The response's headers, lowercased names (only when asked for with `includeHeaders`).
    public var headers: [String: String]
}

/// One HTTP request with /usr/bin/curl, so the tests see the server with no code of ours in between.
public func curlRequest(
    _ method: String, _ url: String, body: String? = nil, contentType: String? = nil, headers: [String] = [],
    user: (name: String, password: String)?, includeHeaders: Bool = false, caFile: String? = nil
) throws -> CurlResponse {
    var arguments = ["-s", "-S", "-X", method, "-o", "-", "-w", "\n%{http_code}", "--max-time", "60"]
    if includeHeaders { arguments.append("-i") }
    if let caFile { arguments += ["--cacert", caFile] }
    if let user { arguments += ["-u", user.name + ":" + user.password] }
    if let contentType { arguments += ["-H", "Content-Type: " + contentType] }
    for header in headers { arguments += ["-H", header] }
    if body != nil { arguments += ["--data-binary", "@-"] }
    arguments.append(url)
    let (exit, text) = try runCurl(arguments, input: body.map { Data($0.utf8) })
    guard exit == 0, let newline = text.lastIndex(of: "\n"), let status = Int(text[text.index(after: newline)...])
    else {
        throw TestServerFailure("curl \(method) \(url) failed (exit \(exit)): \(text.prefix(2000))")
    }
    var content = String(text[..<newline])
    var parsedHeaders: [String: String] = [:]
    if includeHeaders {
        // The last head (after any 100 Continue), then the body.
        while let end = content.range(of: "\r\n\r\n") {
            let head = content[..<end.lowerBound]
            content = String(content[end.upperBound...])
            parsedHeaders = [:]
            for line in head.split(separator: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                parsedHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            if !head.hasPrefix("HTTP/1.1 100") && !head.hasPrefix("HTTP/2 100") { break }
        }
    }
    return CurlResponse(status: status, body: content, headers: parsedHeaders)
}

/// Runs curl with `arguments` and `input` on its standard input: its exit status and its output.
func runCurl(_ arguments: [String], input: Data?) throws -> (Int32, String) {
    guard access("/usr/bin/curl", X_OK) == 0 else {
        throw TestServerFailure("no /usr/bin/curl: run Deploy/test.sh, which installs curl")
    }
    let outcome = try ChildProcess.run("/usr/bin/curl", arguments, input: input.map { Array($0) } ?? [])
    return (outcome.status, outcome.stdout + outcome.stderr)
}

func xmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;")
}

// MARK: - A small multistatus reader (Foundation's XMLParser), independent of the client's libxml2 parser

struct MultistatusEntry {
    var href = ""
    var etag: String?
    var addressData: String?
}

final class MultistatusReader: NSObject, XMLParserDelegate {
    private var entries: [MultistatusEntry] = []
    private var current: MultistatusEntry?
    private var text = ""
    private var inOKPropstat = true

    static func parse(_ xml: String) throws -> [MultistatusEntry] {
        let reader = MultistatusReader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        guard parser.parse() else {
            throw TestServerFailure(
                "unreadable multistatus: \(parser.parserError.map { "\($0)" } ?? "?"): \(xml.prefix(500))")
        }
        return reader.entries
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        text = ""
        if elementName == "response" { current = MultistatusEntry() }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        text += String(decoding: block, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        switch elementName {
        case "href" where current?.href.isEmpty == true:
            current?.href = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case "getetag":
            let etag = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !etag.isEmpty { current?.etag = etag }
        case "address-data":
            if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { current?.addressData = text }
        case "response":
            if let current { entries.append(current) }
            current = nil
        default:
            break
        }
        text = ""
    }
}

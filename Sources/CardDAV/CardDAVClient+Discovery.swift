import HTTP
import Logging

extension CardDAVClient {
    /// Not `CS:getctag`: nothing here uses it, and Radicale computes it over the whole book (`Docs/servers.md`).
    static let bookProperties = [
        "D:resourcetype", "D:displayname", "D:supported-report-set", "C:supported-address-data",
    ]
    static let discoveryProperties = bookProperties + ["D:current-user-principal", "C:addressbook-home-set"]

    /// Finds the address books behind a URL: an address book's own URL gives that book; a server URL (or a
    /// principal or home-set URL) is followed through `/.well-known/carddav` (RFC 6764 6),
    /// `DAV:current-user-principal` (RFC 5397) and `CARDDAV:addressbook-home-set` (RFC 6352 7.1.1), whose
    /// members are listed. Throws `.notFound` when none of these lead to an address book.
    public func discover(_ url: String) throws -> [AddressBookInfo] {
        let found = try explore(url)
        guard !found.books.isEmpty else {
            throw CardDAVError(.notFound, "no CardDAV address book found at \(DAVURL.path(of: url))")
        }
        return found.books
    }

    /// Discovery as by ``discover(_:)``, saying what the URL itself is too (nothing there, a calendar, a
    /// collection that is no address book), for a message that tells a person what to configure instead. The
    /// books may be none.
    public func explore(_ url: String) throws -> Discovery {
        var homeSets: [String] = []
        var principal: String?
        var start = Discovery.Start.resource
        // A broken answer from the URL itself (a DTD, bytes nested too deep, a compressed body) is what went wrong
        // when the well-known URL leads nowhere either: "no address book found" would hide it.
        var brokenAnswer: CardDAVError?
        // The well-known URL is on the URL's own origin (scheme, host and port): credentials go nowhere else.
        for (index, candidate) in [url, DAVURL.resolve("/.well-known/carddav", against: url)].enumerated() {
            let found: (url: String, response: MultistatusResponse)?
            do {
                found = try propfindSelf(candidate, properties: Self.discoveryProperties)
            } catch let error as CardDAVError where index == 0 && Self.worthTheWellKnownURL(error) {
                logger.debug(
                    "carddav discovery: the URL itself is not a collection",
                    metadata: ["carddav.book": "\(DAVURL.path(of: url))"])
                if error.kind == .notFound {
                    start = .missing(status: error.responseStatus ?? 404)
                } else {
                    start = .notDAV(error.message)
                    if error.kind == .malformedResponse, error.status == nil { brokenAnswer = error }
                }
                continue
            } catch let error as CardDAVError where Self.worthTheWellKnownURL(error) {
                if let brokenAnswer { throw brokenAnswer }
                // The well-known URL is optional (RFC 6764 6): without it, what the URL is says it all.
                logger.debug("carddav discovery: no well-known URL", metadata: ["carddav.error": "\(error.message)"])
                break
            }
            guard let (base, response) = found else { continue }
            let properties = response.properties
            if index == 0 {
                start =
                    properties.isAddressBook
                    ? .addressBook
                    : properties.isCalendar ? .calendar : properties.isCollection ? .collection : .resource
            }
            if properties.isAddressBook {
                return Discovery(start: start, books: [Self.bookInfo(response, base: base)])
            }
            homeSets = confined(properties.addressBookHomeSet.map { DAVURL.resolve($0, against: base) }, to: url)
            principal = confined(properties.currentUserPrincipal.map { DAVURL.resolve($0, against: base) }, to: url)
            if !homeSets.isEmpty || principal != nil { break }
        }
        if homeSets.isEmpty, let principal {
            let found = try propfindSelf(principal, properties: ["C:addressbook-home-set"])
            homeSets = confined(
                found.map { base, response in
                    response.properties.addressBookHomeSet.map { DAVURL.resolve($0, against: base) }
                } ?? [], to: url)
        }
        guard !homeSets.isEmpty else {
            if let brokenAnswer { throw brokenAnswer }
            return Discovery(start: start, books: [])
        }
        var books: [AddressBookInfo] = []
        for home in homeSets {
            var members: [MultistatusResponse] = []
            let (response, _) = try multistatus(
                "PROPFIND", home, depth: "1", body: DAVRequestBody.propfind(Self.bookProperties)
            ) { member in
                if member.properties.isAddressBook { members.append(member) }
            }
            for member in members {
                let book = Self.bookInfo(member, base: response.url)
                guard confined(book.url, to: url) != nil else { continue }
                if !books.contains(where: { DAVURL.sameResource($0.url, book.url) }) { books.append(book) }
            }
        }
        return Discovery(start: start, books: books)
    }

    /// The URLs a server names in discovery that the origin policy lets credentials go to; the others are left
    /// out with a warning (a server must not send the box's password to another site by naming it).
    private func confined(_ urls: [String], to origin: String) -> [String] {
        urls.filter { confined($0, to: origin) != nil }
    }

    private func confined(_ candidate: String?, to origin: String) -> String? {
        guard let candidate else { return nil }
        if let refusal = OriginPolicy.refusal(from: origin, to: candidate) {
            logger.warning(
                "Discovery: a URL the server named is left out",
                metadata: ["carddav.url": "\(redactingUserInfo(candidate))", "carddav.reason": "\(refusal)"])
            return nil
        }
        return candidate
    }

    /// A PROPFIND with depth 0; the response for the URL itself (or the only one) and the effective URL to
    /// resolve its hrefs against.
    private func propfindSelf(
        _ url: String, properties: [String]
    ) throws -> (url: String, response: MultistatusResponse)? {
        var responses: [MultistatusResponse] = []
        let (response, _) = try multistatus(
            "PROPFIND", url, depth: "0", body: DAVRequestBody.propfind(properties)
        ) { member in
            if responses.count < 16 { responses.append(member) }
        }
        let base = response.url.isEmpty ? url : response.url
        let own = responses.first { DAVURL.sameResource(DAVURL.resolve($0.href, against: base), base) }
        return (own ?? responses.first).map { (base, $0) }
    }

    /// A server root that is not a WebDAV collection answers 404, 405, 400 or something that is not a
    /// multistatus; the well-known URL may still lead on. Credentials and outages do not get better there.
    private static func worthTheWellKnownURL(_ error: CardDAVError) -> Bool {
        switch error.kind {
        case .notFound, .rejected, .malformedResponse, .preconditionFailed: true
        case .serverError(let status): status == 501
        default: false
        }
    }

    static func bookInfo(_ response: MultistatusResponse, base: String) -> AddressBookInfo {
        let properties = response.properties
        var versions: [String] = []
        for type in properties.supportedAddressData where type.contentType.lowercased() == "text/vcard" {
            if ["3.0", "4.0"].contains(type.version), !versions.contains(type.version) {
                versions.append(type.version)
            }
        }
        let name = properties.displayName.flatMap { $0.isEmpty ? nil : $0 }
        return AddressBookInfo(
            url: DAVURL.resolve(response.href, against: base),
            displayName: name,
            supportsSyncCollection: properties.supportedReports.map { $0.contains("sync-collection") } ?? true,
            supportedVersions: versions.isEmpty ? ["3.0"] : versions.sorted())
    }
}

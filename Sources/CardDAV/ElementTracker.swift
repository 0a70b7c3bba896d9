import CXML2

/// The multistatus state machine behind `MultistatusParser`: which element we are in, what it means for the
/// response being built, and the text kept for it. Elements the client does not want are skipped with a depth
/// counter, and their text is never kept.
struct ElementTracker {
    enum Namespace {
        case dav, cardDAV, calDAV, other

        init(_ uri: UnsafePointer<xmlChar>?) {
            guard let uri else {
                self = .other
                return
            }
            switch String(cString: uri) {
            case "DAV:": self = .dav
            case "urn:ietf:params:xml:ns:carddav": self = .cardDAV
            case "urn:ietf:params:xml:ns:caldav": self = .calDAV
            default: self = .other
            }
        }
    }

    enum Field {
        case etag, displayName, addressData, syncToken, contentLength
    }

    enum Role: Equatable {
        case multistatus, rootError, errorContainer, topSyncToken
        case response, responseHref, responseStatus, responseError
        case propstat, propstatStatus, prop
        case value(Field)
        case resourceType, principal, principalHref, homeSet, homeSetHref
        case supportedAddressData, supportedReportSet, supportedReport, report
    }

    private(set) var summary = MultistatusSummary()
    private var stack: [Role] = []
    private var skippedDepth = 0
    private var response = MultistatusResponse()
    private var propstat = Propstat()

    private var capturing = false
    private var overflowed = false
    /// Whether the text being kept had bytes replaced (see `damaged()`).
    private var textDamaged = false
    private var capacity = 0
    /// The first bytes of a text over its cap, to name it in a message.
    private var overflowStart: [UInt8] = []
    static let startKept = 100
    private var buffer: [UInt8] = []
    /// The card of the `address-data` being read: kept apart from `buffer`, spooled where it is large.
    private var card: CardCollector?

    mutating func start(localName: UnsafePointer<xmlChar>, uri: UnsafePointer<xmlChar>?, attributes: Attributes) {
        if skippedDepth > 0 {
            skippedDepth += 1
            return
        }
        let name = String(cString: localName)
        guard let role = role(of: name, in: Namespace(uri), attributes: attributes) else {
            skippedDepth = 1
            return
        }
        stack.append(role)
        switch role {
        case .response:
            response = MultistatusResponse()
        case .propstat:
            propstat = Propstat()
        case .value(.addressData):
            card = CardCollector()
        case .topSyncToken, .responseHref, .responseStatus, .propstatStatus, .value, .principalHref, .homeSetHref:
            beginText(cap: MultistatusParser.Limits.maxTextBytes)
        default:
            break
        }
    }

    /// What an element means here, or nil to skip it with everything inside.
    private mutating func role(of name: String, in namespace: Namespace, attributes: Attributes) -> Role? {
        guard let parent = stack.last else {
            summary.rootElement = name
            guard namespace == .dav else { return nil }
            return name == "multistatus" ? .multistatus : name == "error" ? .rootError : nil
        }
        switch parent {
        case .rootError, .errorContainer:
            summary.errorConditions.append(name)
            return nil
        case .responseError:
            response.errorConditions.append(name)
            return nil
        case .report:
            propstat.properties.supportedReports?.append(name)
            return nil
        case .resourceType:
            if namespace == .dav && name == "collection" { propstat.properties.isCollection = true }
            if namespace == .cardDAV && name == "addressbook" { propstat.properties.isAddressBook = true }
            if namespace == .calDAV && name == "calendar" { propstat.properties.isCalendar = true }
            return nil
        case .supportedAddressData:
            if namespace == .cardDAV && name == "address-data-type" {
                propstat.properties.supportedAddressData.append(
                    AddressDataType(
                        contentType: attributes.value(localName: "content-type") ?? "text/vcard",
                        version: attributes.value(localName: "version") ?? "3.0"))
            }
            return nil
        default:
            break
        }
        switch (parent, namespace, name) {
        case (.multistatus, .dav, "response"): return .response
        case (.multistatus, .dav, "sync-token"): return .topSyncToken
        case (.multistatus, .dav, "error"): return .errorContainer
        case (.response, .dav, "href"): return .responseHref
        case (.response, .dav, "status"): return .responseStatus
        case (.response, .dav, "propstat"): return .propstat
        case (.response, .dav, "error"): return .responseError
        case (.propstat, .dav, "prop"): return .prop
        case (.propstat, .dav, "status"): return .propstatStatus
        case (.prop, _, _): return propertyRole(name, namespace)
        case (.principal, .dav, "href"): return .principalHref
        case (.homeSet, .dav, "href"): return .homeSetHref
        case (.supportedReportSet, .dav, "supported-report"): return .supportedReport
        case (.supportedReport, .dav, "report"): return .report
        default: return nil
        }
    }

    private mutating func propertyRole(_ name: String, _ namespace: Namespace) -> Role? {
        switch (namespace, name) {
        case (.dav, "getetag"): return .value(.etag)
        case (.dav, "displayname"): return .value(.displayName)
        case (.dav, "sync-token"): return .value(.syncToken)
        case (.dav, "getcontentlength"): return .value(.contentLength)
        case (.cardDAV, "address-data"): return .value(.addressData)
        case (.dav, "resourcetype"):
            propstat.properties.hasResourceType = true
            return .resourceType
        case (.dav, "current-user-principal"): return .principal
        case (.cardDAV, "addressbook-home-set"): return .homeSet
        case (.cardDAV, "supported-address-data"): return .supportedAddressData
        case (.dav, "supported-report-set"):
            propstat.properties.supportedReports = propstat.properties.supportedReports ?? []
            return .supportedReportSet
        default: return nil
        }
    }

    /// Bytes that were not UTF-8 (now U+FFFD) were read inside the element open now. Inside a response, that
    /// element's name goes in the response's `damaged` list; a damaged top-level sync token is dropped. Text of
    /// elements the client skips does not matter.
    mutating func damaged() {
        guard skippedDepth == 0, let role = stack.last else { return }
        if capturing { textDamaged = true }
        guard stack.contains(.response) else { return }
        let name =
            switch role {
            case .responseHref: "href"
            case .value(.etag): "getetag"
            case .value(.addressData): "address-data"
            case .value(.displayName): "displayname"
            case .responseStatus, .propstatStatus: "status"
            default: "response"
            }
        if !response.damaged.contains(name) { response.damaged.append(name) }
    }

    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        if card != nil {
            card?.append(UnsafeRawBufferPointer(bytes))
            return
        }
        guard capturing, !overflowed else { return }
        if buffer.count + bytes.count > capacity {
            overflowed = true
            overflowStart = Array((buffer.prefix(Self.startKept) + bytes.prefix(Self.startKept)).prefix(Self.startKept))
            buffer = []
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Ends the current element; returns the response it completes, if it is a `DAV:response`.
    mutating func end() -> MultistatusResponse? {
        if skippedDepth > 0 {
            skippedDepth -= 1
            return nil
        }
        guard let role = stack.popLast() else { return nil }
        switch role {
        case .response:
            summary.responseCount += 1
            return response
        case .propstat:
            response.propstats.append(propstat)
        case .topSyncToken:
            // A token with replaced bytes is not the server's: better none (the listing fails and says so).
            let damaged = textDamaged
            summary.syncToken = endText()
            if damaged { summary.syncToken = nil }
        case .responseHref:
            let start = overflowed ? String(decoding: overflowStart, as: UTF8.self) + "…" : nil
            response.href = endText(what: "href") ?? ""
            response.overlongHrefStart = start
        case .responseStatus:
            response.status = endText(what: "status").flatMap(Self.statusCode)
        case .propstatStatus:
            propstat.status = endText(what: "status").flatMap(Self.statusCode)
        case .principalHref:
            propstat.properties.currentUserPrincipal = endText(what: "current-user-principal")
        case .homeSetHref:
            if let href = endText(what: "addressbook-home-set") { propstat.properties.addressBookHomeSet.append(href) }
        case .value(let field):
            endValue(field)
        default:
            break
        }
        return nil
    }

    private mutating func endValue(_ field: Field) {
        switch field {
        case .etag: propstat.properties.etag = endText(what: "getetag")
        case .displayName: propstat.properties.displayName = endText(what: "displayname")
        case .syncToken: propstat.properties.syncToken = endText(what: "sync-token")
        case .contentLength:
            // RFC 4918 15.4: digits; anything else is no size (the item is fetched by count, as before sizes).
            propstat.properties.contentLength = endText().flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        case .addressData:
            guard var collected = card.take() else { return }
            switch collected.finish() {
            case .success(let text): propstat.properties.addressDataText = text
            case .failure(let refusal): response.problem = refusal.message
            }
        }
    }

    private mutating func beginText(cap: Int) {
        capturing = true
        overflowed = false
        textDamaged = false
        capacity = cap
        overflowStart = []
        buffer.removeAll(keepingCapacity: true)
    }

    /// The text of the element just ended, without surrounding white space (pretty-printed XML), or nil when it
    /// was over its cap (then the response gets a problem naming `what`).
    private mutating func endText(what: String? = nil) -> String? {
        capturing = false
        defer { releaseBuffer() }
        if overflowed {
            if let what { response.problem = "\(what) is longer than \(MultistatusParser.Limits.maxTextBytes) bytes" }
            return nil
        }
        var slice = buffer[...]
        while let first = slice.first, Self.isSpace(first) { slice.removeFirst() }
        while let last = slice.last, Self.isSpace(last) { slice.removeLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    /// A buffer that grew for a long value is let go; a small one is kept for the next element (cards have their own:
    /// `CardCollector`).
    private mutating func releaseBuffer() {
        if buffer.capacity > MultistatusParser.Limits.maxTextBytes {
            buffer = []
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// "HTTP/1.1 404 Not Found" -> 404 (RFC 4918 14.28: a status-line).
    static func statusCode(_ line: String) -> Int? {
        // Bytes, not Characters: two of these per response of every listing and multiget.
        let parts = line.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[1].count == 3 else { return nil }
        return Int(Substring(parts[1]))
    }
}

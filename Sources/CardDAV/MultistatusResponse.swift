import VCard

/// One `DAV:response` of a multistatus (RFC 4918 14.24), with the properties ContactBox asks for.
///
/// The href is kept exactly as the server sent it (not percent-decoded): it is the item's identity on that server.
public struct MultistatusResponse: Sendable, Equatable {
    public var href: String
    /// The response-level `DAV:status` (e.g. 404 for a removed member in a sync report, 507 for truncation).
    public var status: Int?
    public var propstats: [Propstat]
    /// The local names of `DAV:error` conditions inside this response.
    public var errorConditions: [String]
    /// Why this one response could not be read (a property value over its size cap); the rest of the multistatus
    /// is unaffected.
    public var problem: String?
    /// The elements ("href", "getetag", "address-data" ...) whose bytes were not UTF-8 and were replaced by U+FFFD
    /// so that the rest of the multistatus could be read (`UTF8Repair`). Their values are not the server's.
    public var damaged: [String]
    /// When the href was over its cap (`problem` says so, and `href` is empty): its first bytes, to name the item in
    /// a message. Never an address to use.
    public var overlongHrefStart: String?

    public init(
        href: String = "", status: Int? = nil, propstats: [Propstat] = [], errorConditions: [String] = [],
        problem: String? = nil, damaged: [String] = []
    ) {
        self.href = href
        self.status = status
        self.propstats = propstats
        self.errorConditions = errorConditions
        self.problem = problem
        self.damaged = damaged
    }

    /// The properties found with a 2xx status (several 2xx propstats are merged).
    public var properties: DAVProperties {
        var merged = DAVProperties()
        for propstat in propstats where (200..<300).contains(propstat.status ?? 200) {
            merged.merge(propstat.properties)
        }
        return merged
    }
}

/// One `DAV:propstat`: properties that share a status.
public struct Propstat: Sendable, Equatable {
    public var status: Int?
    public var properties: DAVProperties

    public init(status: Int? = nil, properties: DAVProperties = DAVProperties()) {
        self.status = status
        self.properties = properties
    }
}

/// A `CARDDAV:address-data-type` of `CARDDAV:supported-address-data` (RFC 6352 6.2.2).
public struct AddressDataType: Sendable, Equatable {
    public var contentType: String
    public var version: String

    public init(contentType: String, version: String) {
        self.contentType = contentType
        self.version = version
    }
}

/// The WebDAV, CardDAV and CalendarServer properties the client reads. Absent properties are nil or empty.
public struct DAVProperties: Sendable, Equatable {
    public var etag: String?
    public var displayName: String?
    /// `CARDDAV:address-data`: UTF-8, as the multistatus was read (`UTF8Repair`); spooled where it is large
    /// (`CardCollector`).
    public var addressDataText: CardText? {
        get { addressDataValue?.text }
        set { addressDataValue = newValue.map(AddressData.init) }
    }
    private var addressDataValue: AddressData?
    /// `DAV:getcontentlength` (RFC 4918 15.4): the item's size in bytes, where the server gives it.
    public var contentLength: Int?
    /// True once a `DAV:resourcetype` was seen; then `isCollection` and `isAddressBook` say what it holds.
    public var hasResourceType = false
    public var isCollection = false
    public var isAddressBook = false
    /// RFC 4791 4.2: a CalDAV calendar, which a person may configure by mistake for an address book.
    public var isCalendar = false
    public var currentUserPrincipal: String?
    public var addressBookHomeSet: [String] = []
    public var supportedAddressData: [AddressDataType] = []
    /// Local names of the reports in `DAV:supported-report-set` (e.g. "sync-collection"); nil when not reported.
    public var supportedReports: [String]?
    /// `DAV:sync-token` asked for as a property.
    public var syncToken: String?

    public init() {}

    /// The vCard text of `CARDDAV:address-data`, as a String: for tests and small cards.
    public var addressData: String? {
        get { addressDataText?.string }
        set { addressDataText = newValue.map { .bytes(Array($0.utf8)) } }
    }

    mutating func merge(_ other: DAVProperties) {
        etag = other.etag ?? etag
        displayName = other.displayName ?? displayName
        addressDataValue = other.addressDataValue ?? addressDataValue
        contentLength = other.contentLength ?? contentLength
        if other.hasResourceType {
            hasResourceType = true
            isCollection = other.isCollection
            isAddressBook = other.isAddressBook
            isCalendar = other.isCalendar
        }
        currentUserPrincipal = other.currentUserPrincipal ?? currentUserPrincipal
        addressBookHomeSet += other.addressBookHomeSet
        supportedAddressData += other.supportedAddressData
        supportedReports = other.supportedReports ?? supportedReports
        syncToken = other.syncToken ?? syncToken
    }
}

/// A card's text compared by its bytes, which `CardText` (in memory or spooled) does not do itself: the properties
/// are compared in tests.
private struct AddressData: Sendable, Equatable {
    var text: CardText

    static func == (lhs: AddressData, rhs: AddressData) -> Bool {
        lhs.text.withBytes { left in rhs.text.withBytes { right in left.elementsEqual(right) } }
    }
}

/// What the multistatus said outside its responses, known once the document ends.
public struct MultistatusSummary: Sendable, Equatable {
    /// The local name of the root element: "multistatus" for a 207, "error" for a precondition failure body.
    public var rootElement: String?
    /// The top-level `DAV:sync-token` of a sync-collection report.
    public var syncToken: String?
    /// Local names of the conditions in a top-level `DAV:error` (the root or a child of the multistatus).
    public var errorConditions: [String] = []
    public var responseCount = 0

    public init() {}

    /// RFC 6578 3.2: the token in the request is not (or no longer) valid.
    public var hasInvalidSyncToken: Bool { errorConditions.contains("valid-sync-token") }
    /// RFC 5323 / RFC 6578 3.6: the server truncated the result.
    public var isTruncated: Bool { errorConditions.contains("number-of-matches-within-limits") }
}

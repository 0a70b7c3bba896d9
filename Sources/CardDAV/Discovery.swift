/// What discovery found behind a URL: what the URL itself is, and the address books it leads to.
public struct Discovery: Sendable, Equatable {
    /// What the URL itself answered to a PROPFIND.
    public enum Start: Sendable, Equatable {
        /// The address book itself.
        case addressBook
        /// Nothing there: 404 or 410.
        case missing(status: Int)
        /// A CalDAV calendar.
        case calendar
        /// A collection that is not an address book: the server's root, a home set, a folder.
        case collection
        /// A resource that is no collection: a principal, a file.
        case resource
        /// No WebDAV answer: a web page, a method the URL does not allow. The message says what came instead.
        case notDAV(String)
    }

    public var start: Start
    public var books: [AddressBookInfo]

    public init(start: Start, books: [AddressBookInfo]) {
        self.start = start
        self.books = books
    }

    /// What the URL is, for a message that goes on "URL is not an address book: ..." ("nothing is there (404)").
    public var startText: String {
        switch start {
        case .addressBook: "it is an address book"
        case .missing(let status): "nothing is there (\(status))"
        case .calendar: "it is a calendar"
        case .collection: "it is a collection that is not an address book"
        case .resource: "it is no collection (a principal or a file)"
        case .notDAV(let answer): "it gave no WebDAV answer (\(answer))"
        }
    }
}

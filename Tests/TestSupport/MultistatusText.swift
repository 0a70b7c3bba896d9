/// A WebDAV multistatus answer as a server writes it, for the fake transports of the CardDAV address book's tests
/// (SyncTests, RemotesTests).
public enum MultistatusText {
    /// A card as an `address-data` element carries it, its line ends escaped.
    public static let card = "BEGIN:VCARD&#13;\nVERSION:3.0&#13;\nUID:u1&#13;\nFN:One&#13;\nEND:VCARD&#13;\n"

    /// One item's `response`: its href, ETag and, where given, its card.
    public static func response(_ href: String, etag: String = "\"e1\"", card: String? = nil) -> String {
        let data = card.map { "<C:address-data>\($0)</C:address-data>" } ?? ""
        return "<response><href>\(href)</href><propstat><prop><getetag>\(etag)</getetag>\(data)</prop>"
            + "<status>HTTP/1.1 200 OK</status></propstat></response>"
    }

    /// The whole answer: the responses, after the sync token where given.
    public static func multistatus(_ responses: [String], token: String? = nil) -> String {
        "<?xml version='1.0' encoding='utf-8'?><multistatus xmlns=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:carddav\">"
            + (token.map { "<sync-token>\($0)</sync-token>" } ?? "") + responses.joined() + "</multistatus>"
    }
}

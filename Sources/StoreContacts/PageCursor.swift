import ContactStore
import StatusServer
import SystemSupport
import VCard

/// The opaque `next` of a page, as it travels in a URL: base64url (RFC 4648 5, no padding) of a short text that
/// names the kind of page and where it stopped. What comes back is checked as strictly as it was made: anything
/// else is a 400 in words, never a query with garbage in it.
enum PageCursor {
    /// The longest cursor taken: a display name is rarely long, and the store keeps no name over a card's FN line.
    static let maxLength = 4096

    /// A contact list's cursor: the last contact's display name and row id.
    static func encode(_ cursor: ContactCursor) -> String {
        encode("c:\(cursor.id):\(cursor.displayName)")
    }

    static func contactCursor(_ text: String) throws(ContactsError) -> ContactCursor {
        let decoded = try decode(text)
        let parts = decoded.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "c", let id = Int64(parts[1]), id > 0 else { throw refused }
        return ContactCursor(displayName: String(parts[2]), id: id)
    }

    /// The trash's cursor: the last deletion's time and tombstone row.
    static func encode(_ cursor: TrashCursor) -> String {
        encode("t:\(cursor.deletedAt):\(cursor.contactID)")
    }

    static func trashCursor(_ text: String) throws(ContactsError) -> TrashCursor {
        let parts = try decode(text).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "t", let time = Int64(parts[1]), let id = Int64(parts[2]), id > 0 else {
            throw refused
        }
        return TrashCursor(deletedAt: time, contactID: id)
    }

    static let refused = ContactsError(
        status: 400, "the page cursor is not one this server gave (ask for the first page again)")

    static func encode(_ text: String) -> String {
        Base64.encode(Array(text.utf8), urlSafe: true)
    }

    /// The text of a cursor; `refused` for anything that is not base64url of UTF-8 text of at most `maxLength`.
    static func decode(_ cursor: String) throws(ContactsError) -> String {
        guard !cursor.isEmpty, cursor.utf8.count <= maxLength, cursor.utf8.count % 4 != 1 else { throw refused }
        var decoder = Base64Decoder()
        var bytes: [UInt8] = []
        for byte in cursor.utf8 {
            // Only the URL-safe alphabet, no padding, no white space: what `encode` writes.
            guard byte != UInt8(ascii: "+"), byte != UInt8(ascii: "/"), BinaryValue.sextet(byte) != nil,
                decoder.take(byte, into: &bytes)
            else { throw refused }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw refused }
        return text
    }
}

/// The XML bodies of the requests the client sends.
enum DAVRequestBody {
    static let prolog = #"<?xml version="1.0" encoding="utf-8"?>"#
    static let namespaces = #"xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav""#

    /// PROPFIND for the given properties ("D:getetag", "C:addressbook-home-set" ...).
    static func propfind(_ properties: [String]) -> [UInt8] {
        let props = properties.map { "<\($0)/>" }.joined()
        return Array((prolog + "<D:propfind \(namespaces)><D:prop>\(props)</D:prop></D:propfind>").utf8)
    }

    /// RFC 6578 3.2 sync-collection, one level, ETags and sizes (to page the fetches by bytes).
    static func syncCollection(token: String?) -> [UInt8] {
        let tokenElement = token.map { $0.isEmpty ? "<D:sync-token/>" : "<D:sync-token>\(escape($0))</D:sync-token>" }
        let body =
            "<D:sync-collection \(namespaces)>\(tokenElement ?? "<D:sync-token/>")"
            + "<D:sync-level>1</D:sync-level><D:prop><D:getetag/><D:getcontentlength/></D:prop></D:sync-collection>"
        return Array((prolog + body).utf8)
    }

    /// RFC 6352 8.7 addressbook-multiget. `version` asks for that vCard version when the book supports it.
    static func multiget(hrefs: [String], version: String?) -> [UInt8] {
        var body = prolog + "<C:addressbook-multiget \(namespaces)><D:prop><D:getetag/>\(addressData(version))</D:prop>"
        for href in hrefs {
            body += "<D:href>\(escape(href))</D:href>"
        }
        body += "</C:addressbook-multiget>"
        return Array(body.utf8)
    }

    /// RFC 6352 8.6 addressbook-query for every card of the book with its ETag: a filter without prop-filters
    /// matches every card (10.5: all of no tests hold). The resource type tells a sub-collection apart.
    static func queryAll(version: String?) -> [UInt8] {
        let body =
            "<C:addressbook-query \(namespaces)><D:prop><D:getetag/><D:resourcetype/>\(addressData(version))</D:prop>"
            + #"<C:filter test="allof"/></C:addressbook-query>"#
        return Array((prolog + body).utf8)
    }

    private static func addressData(_ version: String?) -> String {
        version.map { #"<C:address-data content-type="text/vcard" version="\#(escape($0))"/>"# } ?? "<C:address-data/>"
    }

    /// XML character escaping for text and attribute values.
    static func escape(_ text: String) -> String {
        // Bytes, not Characters: every href of a multiget goes through here, and most have nothing to escape.
        let special = { (byte: UInt8) in
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        }
        guard text.utf8.contains(where: special) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): result += "&amp;".utf8
            case UInt8(ascii: "<"): result += "&lt;".utf8
            case UInt8(ascii: ">"): result += "&gt;".utf8
            case UInt8(ascii: "\""): result += "&quot;".utf8
            case UInt8(ascii: "'"): result += "&apos;".utf8
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

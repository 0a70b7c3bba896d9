/// The XML bodies of the requests the client sends.
enum DAVRequestBody {
    static let prolog = #"<?xml version="1.0" encoding="utf-8"?>"#
    static let namespaces = #"xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav""#

    /// PROPFIND for the given properties ("D:getetag", "C:addressbook-home-set" ...).
    static func propfind(_ properties: [String]) -> [UInt8] {
        let props = properties.map { "<\($0)/>" }.joined()
        return Array((prolog + "<D:propfind \(namespaces)><D:prop>\(props)</D:prop></D:propfind>").utf8)
    }

    /// RFC 6578 3.2 sync-collection, one level, ETags only.
    static func syncCollection(token: String?) -> [UInt8] {
        let tokenElement = token.map { $0.isEmpty ? "<D:sync-token/>" : "<D:sync-token>\(escape($0))</D:sync-token>" }
        let body =
            "<D:sync-collection \(namespaces)>\(tokenElement ?? "<D:sync-token/>")"
            + "<D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
        return Array((prolog + body).utf8)
    }

    /// RFC 6352 8.7 addressbook-multiget. `version` asks for that vCard version when the book supports it.
    static func multiget(hrefs: [String], version: String?) -> [UInt8] {
        let addressData =
            version.map { #"<C:address-data content-type="text/vcard" version="\#(escape($0))"/>"# }
            ?? "<C:address-data/>"
        var body = prolog + "<C:addressbook-multiget \(namespaces)><D:prop><D:getetag/>\(addressData)</D:prop>"
        for href in hrefs {
            body += "<D:href>\(escape(href))</D:href>"
        }
        body += "</C:addressbook-multiget>"
        return Array(body.utf8)
    }

    /// XML character escaping for text and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}

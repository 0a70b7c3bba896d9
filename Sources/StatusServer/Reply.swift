import CMicroHTTPD
import Glibc
import SystemSupport

/// An answer of the contacts' routes: any status, type, body and headers, under the policy its kind needs.
struct Reply {
    var status: UInt32
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []
    /// The contacts are the household's: no copy on a disk cache (`no-store`), but for the JSON API, whose
    /// clients ask again with `If-None-Match` (`private, no-cache`: kept, but asked for each time).
    var cacheControl = "no-store"
    var policy = Reply.pagePolicy

    /// The contacts' pages have no script at all; photos come from this box only.
    static let pagePolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        + "frame-ancestors 'none'"
    /// For JSON, a card's text and a photo: nothing in them runs, even opened on their own in a tab.
    static let dataPolicy = "default-src 'none'; sandbox; frame-ancestors 'none'"

    static let json = "application/json"
    static let html = "text/html; charset=utf-8"
    static let vcard = "text/vcard; charset=utf-8"

    func queue(on connection: OpaquePointer) -> MHD_Result {
        // As `Response.queue`: MHD copies the body, our array can go when this returns.
        let created = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response = created else { return .NO }
        defer { MHD_destroy_response(response) }
        var added = Response.addHeaders(
            to: response, contentType: contentType, cacheControl: cacheControl, policy: policy)
        for (name, value) in headers where added {
            added = MHD_add_response_header(response, name, value) == .YES
        }
        guard added else { return .NO }
        return MHD_queue_response(connection, status, response)
    }

    /// JSON with a strong `ETag` of its bytes (`etag` instead when the resource has its own: a contact's hash),
    /// or 304 when the client's `If-None-Match` names it already.
    static func json(_ body: ByteWriter, etag: String? = nil, ifNoneMatch: String?, status: UInt32 = 200) -> Reply {
        let tag = "\"" + (etag ?? String(PairingSecret.hex(PairingSecret.sha256(body.bytes)).prefix(32))) + "\""
        if let ifNoneMatch, status == 200, entityTags(ifNoneMatch).contains(where: { $0 == tag || $0 == "*" }) {
            return Reply(
                status: UInt32(MHD_HTTP_NOT_MODIFIED), contentType: json, body: [], headers: [("ETag", tag)],
                cacheControl: "private, no-cache", policy: dataPolicy)
        }
        return Reply(
            status: status, contentType: json, body: body.bytes, headers: [("ETag", tag)],
            cacheControl: "private, no-cache", policy: dataPolicy)
    }

    /// The entity tags of an `If-None-Match` or `If-Match` value (RFC 9110 section 13.1): a list of quoted tags,
    /// weak ones (`W/"..."`) compared by their opaque part, or `*`. A bare tag without quotes is taken as well, as
    /// people's scripts send the hash they were given.
    static func entityTags(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { part in
            var tag = part.trimmingWhitespace
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            guard !tag.isEmpty else { return nil }
            if tag == "*" || tag.hasPrefix("\"") { return tag }
            return "\"" + tag + "\""
        }
    }

    /// An error of the API in JSON: `{"error": "...", "status": N}`.
    static func error(_ status: Int, _ message: String, headers: [(String, String)] = []) -> Reply {
        var body = ByteWriter(capacity: 64 + message.utf8.count)
        body.raw("{\"error\":")
        body.jsonString(message)
        body.raw(",\"status\":")
        body.decimal(status)
        body.raw("}\n")
        return Reply(
            status: UInt32(status), contentType: json, body: body.bytes, headers: headers, policy: dataPolicy)
    }
}

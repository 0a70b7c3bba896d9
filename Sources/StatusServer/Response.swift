import CMicroHTTPD
import Glibc
import SystemSupport

/// Every answer the status server gives, and how each becomes an MHD response.
enum Response {
    case page
    case json
    case metrics
    case syncRequested
    /// An undo request was handed to the daemon (`preview`, `arm` or `cancel`).
    case undoRequested(step: String, run: Int64?)
    /// A request this server cannot act on (a missing or malformed run number), with what to do instead.
    case badRequest(String)
    /// A request that does not fit the undo's current step (arming before the preview, a second undo while one
    /// waits for the button), with why.
    case conflict(String)
    case unauthorized
    /// The client, or everyone together, sent too many wrong passwords: try again after this many seconds.
    case tooManyRequests(retryAfter: Duration)
    /// An HTTP/1.1 request without `Host`.
    case hostMissing
    /// A request whose body length two parsers could read differently (``RequestFraming``): 400, and the
    /// connection closes so that nothing after it on the connection is read as a request.
    case ambiguousFraming
    /// A `Host` the box does not answer to (DNS rebinding, or a name to add to `allowed_hosts`).
    case misdirected
    case forbidden
    /// A change from a browser that is not paired with the box (or without its token).
    case notPaired
    case wrongPairingCode
    case pairing(PairingAnswer)
    case settings(SettingsAnswer)
    case setup(SetupAnswer)
    case notFound
    case methodNotAllowed(allow: String)
    case contentTooLarge
    /// An answer of the contacts' routes (`RequestHandler+Contacts.swift`): its own status, type and headers.
    case reply(Reply)
    /// A download read a chunk at a time as the client takes it (``ExportStream``).
    case stream(ExportStream)
    /// No answer yet: the request waits, its connection suspended (``LongPolls``).
    case suspended

    /// The realm people see in the browser's password prompt.
    static let realm = "ContactBox"

    /// The page needs its own inline style and script, `fetch()` to this host and nothing else; `data:` images
    /// only for the empty favicon that stops browsers asking for `/favicon.ico`. No framing (clickjacking of the
    /// "Sync now" button), no referrer (the box's address is nobody's business). The one script that may run is
    /// the page's own, named by its SHA-256 (CSP Level 2's hash source): markup that got into the page some other
    /// way would find no script it may run.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src '\(scriptHash(StatusPage.script))'; "
        + "connect-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// `sha256-BASE64` of `script` as the page has it between `<script>` and `</script>`.
    static func scriptHash(_ script: String) -> String {
        "sha256-" + Base64.encode(PairingSecret.sha256(Array(script.utf8)))
    }

    var status: UInt32 {
        switch self {
        case .page, .json, .metrics: UInt32(MHD_HTTP_OK)
        case .syncRequested, .undoRequested: UInt32(MHD_HTTP_ACCEPTED)
        case .badRequest: UInt32(MHD_HTTP_BAD_REQUEST)
        case .conflict: UInt32(MHD_HTTP_CONFLICT)
        case .unauthorized: UInt32(MHD_HTTP_UNAUTHORIZED)
        case .tooManyRequests: UInt32(MHD_HTTP_TOO_MANY_REQUESTS)
        case .hostMissing, .ambiguousFraming: UInt32(MHD_HTTP_BAD_REQUEST)
        case .misdirected: UInt32(MHD_HTTP_MISDIRECTED_REQUEST)
        case .forbidden, .notPaired, .wrongPairingCode: UInt32(MHD_HTTP_FORBIDDEN)
        case .pairing(let answer): answer.status
        case .settings(.view): UInt32(MHD_HTTP_OK)
        case .settings(.refused(let status, _)), .setup(.refused(let status, _)): UInt32(status)
        case .setup(.view(let view)):
            UInt32(view.phase.isRunning ? MHD_HTTP_ACCEPTED : MHD_HTTP_OK)
        case .notFound: UInt32(MHD_HTTP_NOT_FOUND)
        case .methodNotAllowed: UInt32(MHD_HTTP_METHOD_NOT_ALLOWED)
        case .contentTooLarge: UInt32(MHD_HTTP_CONTENT_TOO_LARGE)
        case .reply(let reply): reply.status
        case .stream: UInt32(MHD_HTTP_OK)
        case .suspended: 0
        }
    }

    /// The headers every answer has: its type, how it may be cached, and what a browser may do with it: never
    /// guess another type (`nosniff`), never send the box's address to another site (`same-origin`: with
    /// `no-referrer`, a browser sends `Origin: null` with a plain form's POST, which the origin check refuses, so the
    /// contacts' forms could not work), never show it in a frame, and only what `policy` allows.
    static func addHeaders(
        to response: OpaquePointer, contentType: String, cacheControl: String, policy: String
    ) -> Bool {
        MHD_add_response_header(response, "Content-Type", contentType) == .YES
            && MHD_add_response_header(response, "Cache-Control", cacheControl) == .YES
            && MHD_add_response_header(response, "X-Content-Type-Options", "nosniff") == .YES
            && MHD_add_response_header(response, "Referrer-Policy", "same-origin") == .YES
            && MHD_add_response_header(response, "X-Frame-Options", "DENY") == .YES
            && MHD_add_response_header(response, "Content-Security-Policy", policy) == .YES
    }

    /// Builds the body (taking one snapshot for the three views of it), queues it, and lets go of our reference:
    /// > MHD_destroy_response: Destroy a response object and associated resources. Note that libmicrohttpd may
    /// > keep some of the resources around if the response is still in the queue for some clients.
    func queue(on connection: OpaquePointer, snapshot: () -> StatusSnapshot) -> MHD_Result {
        var body: ByteWriter
        let contentType: String
        switch self {
        case .suspended:
            return .YES
        case .stream(let stream):
            return stream.queue(on: connection)
        case .reply(let reply):
            return reply.queue(on: connection)
        case .page:
            let snapshot = snapshot()
            body = ByteWriter(capacity: StatusPage.style.utf8.count + StatusPage.script.utf8.count + 4096)
            StatusPage.render(snapshot, now: wallClockSeconds(), into: &body)
            contentType = StatusPage.contentType
        case .json:
            let snapshot = snapshot()
            body = ByteWriter(capacity: 1024 + 256 * snapshot.remotes.count + 128 * snapshot.events.count)
            StatusJSON.render(snapshot, into: &body)
            contentType = "application/json"
        case .metrics:
            let snapshot = snapshot()
            body = ByteWriter(capacity: 4096 + 256 * snapshot.remotes.count)
            StatusMetrics.render(snapshot, into: &body)
            contentType = StatusMetrics.contentType
        case .syncRequested:
            body = ByteWriter(capacity: 32)
            body.raw("{\"requested\":true}\n")
            contentType = "application/json"
        case .undoRequested(let step, let run):
            body = ByteWriter(capacity: 64)
            body.raw("{\"requested\":")
            body.jsonString(step)
            body.raw(",\"run\":")
            body.jsonNumber(run)
            body.raw("}\n")
            contentType = "application/json"
        case .pairing(let answer):
            body = ByteWriter(capacity: 128 + 96 * answer.browsers.count)
            answer.render(into: &body)
            contentType = "application/json"
        case .settings(.view(let view)):
            body = ByteWriter(capacity: 256 + 256 * view.remotes.count)
            view.render(into: &body)
            contentType = "application/json"
        case .setup(.view(let view)):
            body = ByteWriter(capacity: 1024 + 256 * view.books.count)
            view.render(into: &body)
            contentType = "application/json"
        case .settings(.refused(_, let message)), .setup(.refused(_, let message)):
            body = ByteWriter(capacity: 64 + message.utf8.count)
            body.raw("{\"error\":")
            body.jsonString(message)
            body.raw("}\n")
            contentType = "application/json"
        case .badRequest, .conflict, .unauthorized, .tooManyRequests, .hostMissing, .ambiguousFraming, .misdirected,
            .forbidden, .notPaired, .wrongPairingCode, .notFound, .methodNotAllowed, .contentTooLarge:
            body = ByteWriter(capacity: 64)
            body.raw(errorText)
            contentType = "text/plain; charset=utf-8"
        }
        // > MHD_RESPMEM_MUST_COPY: Buffer is in transient memory, but not on the heap (for example, on the stack or
        // > non-`malloc()` allocated) and only valid during the call to #MHD_create_response_from_buffer. MHD must
        // > make its own private copy of the data for processing.
        // So MHD never writes through the pointer, and our array can go when this function returns.
        let created = body.bytes.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response = created else { return .NO }
        defer { MHD_destroy_response(response) }

        // The page, the JSON and the metrics change every second; a cached copy would only mislead.
        var added = Self.addHeaders(
            to: response, contentType: contentType, cacheControl: "no-store", policy: Self.contentSecurityPolicy)
        if case .methodNotAllowed(let allow) = self {
            added = added && MHD_add_response_header(response, "Allow", allow) == .YES
        }
        if case .pairing(let answer) = self, let cookie = answer.setCookie {
            added = added && MHD_add_response_header(response, "Set-Cookie", cookie) == .YES
        }
        if case .tooManyRequests(let wait) = self {
            added = added && MHD_add_response_header(response, "Retry-After", "\(wait.wholeSecondsRoundingUp)") == .YES
        }
        if case .ambiguousFraming = self {
            // MHD also closes a connection answered before its request was read (see `RequestHandler.handle`); the
            // header says so to the client, and makes MHD close it after the response in any case.
            added = added && MHD_add_response_header(response, "Connection", "close") == .YES
        }
        // Out of memory in MHD: closing the connection is all that is left.
        guard added else { return .NO }
        if case .unauthorized = self {
            // Adds `WWW-Authenticate: Basic realm="ContactBox"` and queues with 401.
            return MHD_queue_basic_auth_fail_response(connection, Self.realm, response)
        }
        return MHD_queue_response(connection, status, response)
    }

    private var errorText: String {
        switch self {
        case .unauthorized: "This ContactBox asks for its status page password.\n"
        case .tooManyRequests(let wait):
            "Too many wrong passwords (from this address, or at this box); try again in "
                + "\(wait.wholeSecondsRoundingUp) seconds.\n"
        case .hostMissing: "Bad request: HTTP/1.1 needs a Host header.\n"
        case .ambiguousFraming:
            "Bad request: give the body's length once, with Content-Length or Transfer-Encoding: chunked.\n"
        case .misdirected:
            "Misdirected request: this ContactBox does not answer to that host name. If the name is yours, add it "
                + "to allowed_hosts under [status] in the configuration.\n"
        case .forbidden: "Refused: the request came from another web site. Use the button on the status page.\n"
        case .notPaired:
            "Refused: this browser is not paired with the box. On the status page, choose Pair this browser, then "
                + "press the button on the box.\n"
        case .wrongPairingCode:
            "That pairing code is wrong, used or expired. Run contactbox pair on the box for a new one.\n"
        case .notFound: "Not found. The status page is at /, its data at /api/status and /metrics.\n"
        case .methodNotAllowed(let allow): "Method not allowed here; use \(allow).\n"
        case .contentTooLarge: "Request body too large.\n"
        case .badRequest(let text), .conflict(let text): text + "\n"
        case .page, .json, .metrics, .syncRequested, .undoRequested, .pairing, .settings, .setup, .reply, .stream,
            .suspended:
            ""
        }
    }
}

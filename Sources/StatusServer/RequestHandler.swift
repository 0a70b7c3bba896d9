import CMicroHTTPD
import Glibc
import Logging
import SafeText
import Synchronization
import SystemSupport

/// Answers requests. libmicrohttpd calls it on its one internal polling thread; besides constants and `@Sendable`
/// closures it holds the password attempts and the allowed hosts, each behind its own lock.
final class RequestHandler: Sendable {
    /// Most requests use no body (`POST /api/sync` needs none, the undo's run is in the query string), so anything
    /// over this is refused...
    static let maxBodyBytes = 1024
    /// ...but a form (the settings, the setup, a restore, the API tokens: ``isForm(_:)``), read up to this.
    static let maxFormBytes = 4096

    /// Whether `path` takes a form: compared in place, as every request (and every chunk of its body) asks.
    static func isForm(_ path: UnsafePointer<CChar>) -> Bool {
        strcmp(path, "/api/settings") == 0 || strcmp(path, "/api/setup") == 0 || strcmp(path, "/restore") == 0
            || strcmp(path, "/tokens") == 0
    }

    /// The bodies of forms being received, by connection (MHD's one thread; the lock is for the rules). At most one
    /// per connection, at most `maxFormBytes` each, gone when the request ends however it ends.
    private let bodies = Mutex<[UInt: [UInt8]]>([:])
    /// The connections receiving a card (PUT), at most ``maxCardsAtOnce``: from their head to their request's end.
    private let cardUploads = Mutex<Set<UInt>>([])

    private let snapshot: @Sendable () -> StatusSnapshot
    private let syncNow: @Sendable () -> Void
    private let undo: @Sendable (UndoRequest) -> Void
    /// The browsers paired with the box: every change needs one.
    let pairings: PairedBrowsers
    /// Hands a request to be paired to the daemon, which waits for the button.
    let pair: @Sendable (PairingRequest) -> Void
    /// Served over HTTPS: the pairing cookie is `Secure` then.
    let isSecure: Bool
    /// Reads and changes the settings for a paired browser (the daemon knows the files); nil: no `/api/settings`.
    let settings: (@Sendable (SettingsRequest) -> SettingsAnswer)?
    /// Adding an address book, step by step, for a paired browser; nil: no `/api/setup`.
    let setup: (@Sendable (SetupRequest) -> SetupAnswer)?
    /// The household's contacts (``ContactsBackend``); nil: no contacts' pages or API.
    let contacts: (any ContactsBackend)?
    /// The JSON API's tokens (`contactbox token`); nil: no token is taken.
    let tokens: APITokens?
    /// Hands a restore to the box's button (false: another change waits for it); nil: only on the page.
    let armRestore: (@Sendable (PageRestore) -> Bool)?
    /// The changes feed's waiting requests.
    let longPolls = LongPolls()
    let logger: Logger
    /// The UTF-8 bytes of the password; nil when the page is open to everyone on the network. Set again when the
    /// household changes it on the page (``setPassword(_:)``).
    private let password: Mutex<[UInt8]?>
    private let allowedHosts: AllowedHosts
    let attempts = Mutex(PasswordAttempts())
    /// Each request's total deadline, kept by MHD's connection notifications.
    let deadlines: RequestDeadlines
    /// Monotonic milliseconds, for the password lockouts.
    let clock: @Sendable () -> Int64

    init(
        password: String?, allowedHosts: AllowedHosts, clock: @escaping @Sendable () -> Int64,
        snapshot: @escaping @Sendable () -> StatusSnapshot, syncNow: @escaping @Sendable () -> Void,
        undo: @escaping @Sendable (UndoRequest) -> Void, pairings: PairedBrowsers,
        pair: @escaping @Sendable (PairingRequest) -> Void, isSecure: Bool = false,
        settings: (@Sendable (SettingsRequest) -> SettingsAnswer)? = nil,
        setup: (@Sendable (SetupRequest) -> SetupAnswer)? = nil, contacts: (any ContactsBackend)? = nil,
        tokens: APITokens? = nil, armRestore: (@Sendable (PageRestore) -> Bool)? = nil, logger: Logger
    ) {
        self.password = Mutex(password.map { Array($0.utf8) })
        self.allowedHosts = allowedHosts
        self.clock = clock
        self.deadlines = RequestDeadlines(clock: clock)
        self.snapshot = snapshot
        self.syncNow = syncNow
        self.undo = undo
        self.pairings = pairings
        self.pair = pair
        self.isSecure = isSecure
        self.settings = settings
        self.setup = setup
        self.contacts = contacts
        self.tokens = tokens
        self.armRestore = armRestore
        self.logger = logger
    }

    /// One call of MHD's access handler. From the libmicrohttpd manual (`MHD_AccessHandlerCallback`):
    /// > For each HTTP request this callback is called several times:
    /// > * after request headers are fully received and decoded,
    /// > * for each received part of request body (optional, if request has body),
    /// > * when request is fully received.
    /// > If response is provided before request is fully received, the rest of the request is discarded and
    /// > connection is automatically closed after sending response. [...] The response cannot be queued when this
    /// > callback is called to process the client upload data.
    ///
    /// The state of a request lives in `*con_cls` itself, so a request allocates nothing of ours: nil before the
    /// first call, then 1 + the number of body bytes seen (at most 1 KiB; 4 KiB for a form, whose bytes are kept in
    /// `bodies` until the request ends).
    func handle(
        _ connection: OpaquePointer, path: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>, uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let (limit, isKept) = Self.bodyLimit(path, method: method)
        guard let state = requestState.pointee else {
            // Headers only. A request for another host is refused before anything else (DNS rebinding), and a body
            // announced as too large before a byte of it is read; answering early also makes MHD close the
            // connection instead of reading the rest. Framing comes first: after an ambiguous head nothing on the
            // connection can be trusted to be what it seems.
            guard RequestFraming.of(connection).isUnambiguous else {
                logger.info(
                    "Status request with an ambiguous body length refused",
                    metadata: ["status.client": "\(clientAddress(connection))"])
                return respond(connection, method: method, path: path, .ambiguousFraming)
            }
            let host = header(connection, "Host")
            switch allowedHosts.check(host, httpVersion: String(cString: version)) {
            case .allowed: break
            case .missing: return respond(connection, method: method, path: path, .hostMissing)
            case .refused:
                logger.info(
                    "Status request for another host refused",
                    metadata: [
                        "http.host": "\(printable(host ?? ""))", "status.client": "\(clientAddress(connection))",
                    ])
                return respond(connection, method: method, path: path, .misdirected)
            }
            if let length = header(connection, "Content-Length"), (Int(length) ?? Int.max) > limit {
                return respond(connection, method: method, path: path, .contentTooLarge)
            }
            if limit == Self.maxCardBytes, let refusal = refuseCard(connection) {
                return respond(connection, method: method, path: path, refusal)
            }
            requestState.pointee = UnsafeMutableRawPointer(bitPattern: 1)
            return .YES
        }
        if uploadSize.pointee > 0 {
            // A chunked body has no length up front; past the limit we close the connection (MHD_NO), as the
            // response cannot be queued while body data is being delivered.
            let count = uploadSize.pointee
            let seen = Int(bitPattern: state) - 1 + count
            uploadSize.pointee = 0
            guard seen <= limit else { return .NO }
            if isKept, let uploadData {
                let chunk = UnsafeRawBufferPointer(start: uploadData, count: count)
                bodies.withLock { $0[UInt(bitPattern: connection), default: []].append(contentsOf: chunk) }
            }
            requestState.pointee = UnsafeMutableRawPointer(bitPattern: 1 + seen)
            return .YES
        }
        let body = bodies.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) } ?? []
        return respond(
            connection, method: method, path: path, answer(connection, method: method, path: path, body: body))
    }

    /// MHD's word that a request ended, answered or not: its deadline, any body it left and any wait it was in go.
    func requestEnded(_ connection: OpaquePointer) {
        deadlines.completed(connection)
        longPolls.end(connection)
        _ = bodies.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
        _ = cardUploads.withLock { $0.remove(UInt(bitPattern: connection)) }
    }

    /// Before a card's body is read: the writer must be one (a token with `--write`, or a paired browser), and at
    /// most ``maxCardsAtOnce`` cards may be on their way in, since each is held whole until it is complete.
    private func refuseCard(_ connection: OpaquePointer) -> Response? {
        if let bearer = header(connection, "Authorization").flatMap(APITokens.bearerToken) {
            // As for any request: an unknown token is 401 and counts against the attempt limits; a known one that
            // only reads is 403, as the same request with no body gets.
            switch tokenReader(connection, bearer) {
            case .failure(let refusal): return refusal.response
            case .success(let reader) where !reader.canWrite:
                return .reply(
                    .error(
                        403, "This API token only reads: make one with `contactbox token create NAME --write`."))
            case .success: break
            }
        } else if case .refused(let refusal) = pairedSender(connection, form: [:]) {
            return refusal
        }
        let taken = cardUploads.withLock { uploads in
            guard uploads.count < Self.maxCardsAtOnce else { return false }
            uploads.insert(UInt(bitPattern: connection))
            return true
        }
        guard taken else {
            return .reply(
                .error(503, "Other cards are being received; send again in a moment.", headers: [("Retry-After", "2")]))
        }
        return nil
    }

    /// What to answer a fully received request.
    private func answer(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, path: UnsafePointer<CChar>, body: [UInt8]
    ) -> Response {
        // A program's API token is its own credential: the page's password is not asked of it (the one
        // Authorization header carries one or the other). It reads what the page shows and the contacts' API;
        // changes other than a contact's need a paired browser, which a program is not.
        var token: ContactsReader?
        if let bearer = header(connection, "Authorization").flatMap(APITokens.bearerToken) {
            switch tokenReader(connection, bearer) {
            case .success(let reader): token = reader
            case .failure(let refusal): return refusal.response
            }
        } else if let password = password.withLock({ $0 }),
            let refusal = checkPassword(connection, password: password)
        {
            return refusal
        }
        if let route = Self.contactsRoute(path) {
            return answerContacts(route, connection, method: method, body: body, token: token)
        }
        let isRead = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0
        if strcmp(path, "/api/sync") == 0 {
            guard strcmp(method, "POST") == 0 else { return .methodNotAllowed(allow: "POST") }
            guard isSameOrigin(connection) else { return .forbidden }
            syncNow()
            return .syncRequested
        }
        if let pairing = answerPairing(connection, method: method, path: path) { return pairing }
        if strcmp(path, "/api/settings") == 0, let settings {
            return answerPairedForm(
                connection, method: method, body: body, read: { .settings(settings(.read)) },
                post: { .settings(settings(.change($0))) })
        }
        if strcmp(path, "/api/setup") == 0, let setup {
            return answerPairedForm(
                connection, method: method, body: body, read: { .setup(setup(.read)) },
                post: { form in
                    guard let request = Self.setupRequest(form) else {
                        return .badRequest("Which step? action must be find, add, cancel or password.")
                    }
                    return .setup(setup(request))
                })
        }
        if let step = Self.undoStep(path) {
            guard strcmp(method, "POST") == 0 else { return .methodNotAllowed(allow: "POST") }
            if let refusal = refuseUnlessPaired(connection) { return refusal }
            return answerUndo(step, run: MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, "run"))
        }
        let page: Response
        if strcmp(path, "/") == 0 {
            page = .page
        } else if strcmp(path, "/api/status") == 0 {
            page = .json
        } else if strcmp(path, "/metrics") == 0 {
            page = .metrics
        } else {
            return .notFound
        }
        // MHD answers HEAD itself from the GET response:
        // > If response object is used to answer HEAD request then the body of the response is not used, while all
        // > headers (including automatic headers) are used.
        return isRead ? page : .methodNotAllowed(allow: "GET, HEAD")
    }

    /// The undo's three steps: `/api/undo/preview`, `/api/undo` (arm) and `/api/undo/cancel`; and the recover of a
    /// damaged store, armed as an undo is: `/api/recover`.
    private static func undoStep(_ path: UnsafePointer<CChar>) -> String? {
        if strcmp(path, "/api/undo/preview") == 0 { return "preview" }
        if strcmp(path, "/api/undo") == 0 { return "arm" }
        if strcmp(path, "/api/undo/cancel") == 0 { return "cancel" }
        if strcmp(path, "/api/recover") == 0 { return "recover" }
        return nil
    }

    /// Hands an undo step to the daemon. Arming needs the preview of the same run first (the page shows what the
    /// undo would change and asks before it arms), and neither a preview nor an arm is taken while another undo
    /// waits for the button or runs; the daemon checks the same again when it takes the request.
    private func answerUndo(_ step: String, run text: UnsafePointer<CChar>?) -> Response {
        if step == "cancel" {
            undo(.cancel)
            return .undoRequested(step: step, run: nil)
        }
        if step == "recover" { return answerRecover() }
        guard let run = UndoRequest.runNumber(text.map { String(cString: $0) }) else {
            return .badRequest("Which run? Give its number, as the page lists it: /api/undo/preview?run=42")
        }
        let current = snapshot().undo
        if let current, current.phase == .armed || current.phase == .confirmed {
            return .conflict(
                "The undo of run \(current.run) is \(current.phase == .armed ? "waiting for the button" : "running"); "
                    + "cancel it or wait for it to end first.")
        }
        if step == "preview" {
            undo(.preview(run: run))
        } else {
            guard let current, current.phase == .previewed, current.run == run else {
                return .conflict("Check what undoing run \(run) would change first: /api/undo/preview?run=\(run).")
            }
            undo(.arm(run: run))
        }
        return .undoRequested(step: step, run: run)
    }

    /// Hands the recover of the damaged store to the daemon, which arms it (the box then waits for a long press).
    /// Only while the store is damaged and has a good copy, and no undo waits for the button or runs; the daemon
    /// checks the same again.
    private func answerRecover() -> Response {
        let current = snapshot()
        guard let damage = current.damage else {
            return .conflict("The store passes its check: there is nothing to recover.")
        }
        guard damage.copy != nil else {
            return .conflict(
                "No safety copy of the store passes the check, so there is none to recover from: nothing changed.")
        }
        if let undo = current.undo, undo.phase == .armed || undo.phase == .confirmed {
            return .conflict(
                "Another change is \(undo.phase == .armed ? "waiting for the button" : "running"); cancel it or wait"
                    + " for it to end first.")
        }
        undo(.recover)
        return .undoRequested(step: "recover", run: nil)
    }

    /// Whether the page asks for a password (so a request that got this far gave it).
    var hasPassword: Bool { password.withLock { $0 != nil } }

    /// The page's new password, for the requests from now on (nil: open to the home network).
    func setPassword(_ new: String?) {
        password.withLock { $0 = new.map { Array($0.utf8) } }
    }

    /// Whether a request that changes something comes from the page itself (``RequestGuard/isSameOrigin``).
    func isSameOrigin(_ connection: OpaquePointer) -> Bool {
        RequestGuard.isSameOrigin(
            origin: header(connection, "Origin"), host: header(connection, "Host"),
            fetchSite: header(connection, "Sec-Fetch-Site"))
    }

    /// nil when the request carries the right password; else the answer: 401 to ask for it, 429 while its client
    /// is locked out for guessing or the box's budget of wrong passwords is spent (``PasswordAttempts``). Each wrong
    /// password is logged with the client's address, never with what was tried.
    private func checkPassword(_ connection: OpaquePointer, password: [UInt8]) -> Response? {
        let client = clientAddress(connection)
        let key = PasswordAttempts.key(for: client)
        let now = clock()
        if let wait = attempts.withLock({ $0.wait(for: key, now: now) }) {
            return .tooManyRequests(retryAfter: wait)
        }
        switch isAuthorized(connection, password: password) {
        case true:
            attempts.withLock { $0.succeeded(key, now: now) }
            return nil
        case false:
            let (failures, lockout) = attempts.withLock { $0.failed(key, now: now) }
            var metadata: Logger.Metadata = ["status.client": "\(client)", "status.failures": "\(failures)"]
            if let lockout { metadata["status.retry_after"] = "\(lockout.wholeSecondsRoundingUp)s" }
            logger.notice(
                lockout == nil ? "Wrong status page password" : "Wrong status page password: client locked out",
                metadata: metadata)
            return .unauthorized
        case nil:
            return .unauthorized
        }
    }

    /// The client's IP address, as logged and as the password attempts are counted.
    func clientAddress(_ connection: OpaquePointer) -> String {
        cmhd_client_address(connection).flatMap { numericText($0) } ?? "unknown"
    }

    /// HTTP Basic authentication (RFC 7617) with any user name: the box has one password, and asking people to
    /// remember a user name as well would only add a way to get it wrong. nil when the request has no Basic
    /// credentials at all (a browser's first request, before it asks): that is no guess.
    private func isAuthorized(_ connection: OpaquePointer, password expected: [UInt8]) -> Bool? {
        var given: UnsafeMutablePointer<CChar>?
        // > @return NULL if no username could be found, a pointer to the username if found, free using MHD_free().
        guard let user = MHD_basic_auth_get_username_password(connection, &given) else { return nil }
        MHD_free(user)
        guard let given else { return nil }
        defer {
            // Do not leave the password in freed heap memory.
            memset(given, 0, strlen(given))
            MHD_free(given)
        }
        let bytes = UnsafeRawPointer(given).assumingMemoryBound(to: UInt8.self)
        return RequestGuard.constantTimeEqual(UnsafeBufferPointer(start: bytes, count: strlen(given)), expected)
    }

    /// A request header, by its case-insensitive name.
    func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private func respond(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, path: UnsafePointer<CChar>, _ response: Response
    ) -> MHD_Result {
        logger.debug(
            "Status request",
            metadata: [
                "http.method": "\(String(cString: method))", "http.path": "\(String(cString: path))",
                "http.status": "\(response.status)",
            ])
        var response = response
        if isSecure, case .pairing(var answer) = response {
            answer.secure = true
            response = .pairing(answer)
        }
        // Without a password anyone on the network reads the page: no contact names then.
        let redact = password.withLock { $0 == nil }
        return response.queue(on: connection) { redact ? snapshot().withoutNames() : snapshot() }
    }
}

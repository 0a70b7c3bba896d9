import CMicroHTTPD
import Glibc
import Logging
import SafeText
import SystemSupport

/// The household's contacts: the pages (`/contacts`, `/contacts/UID`, `/trash`, `/restore`, `/tokens`) and the JSON
/// API (`/api/contacts`, `/api/contacts/UID`, `.../history`, `.../photo`, `/api/trash`, `/api/changes`,
/// `/api/export`), read through the daemon's ``ContactsBackend``.
///
/// Who may read them: a paired browser (its cookie), anyone who gave the page's password, or a program with an API
/// token (`Authorization: Bearer`, `contactbox token create`). Without any of these the page shows counts only, as
/// before, and the API answers 401. Who may change them: a token made with `--write` (PUT and DELETE), or a paired
/// browser with its anti-forgery token (a restore, from the page; tokens).
extension RequestHandler {
    /// The most a card sent with PUT may be: a contact with a photo, not a whole address book.
    static let maxCardBytes = 1024 * 1024
    /// How many cards may be on their way in at once: their bodies are held in memory until complete.
    static let maxCardsAtOnce = 2
    /// A restore may be confirmed on the page by a browser paired this recently (seconds); else the button confirms.
    static let confirmOnPageWithin: Int64 = 600

    enum ContactsRoute: Equatable {
        case list
        case contact(String)
        case history(String)
        case photo(String)
        case trash, changes, export
        case listPage
        case contactPage(String)
        case trashPage, restoreForm, tokensPage
    }

    /// The route of `path`, as MHD gives it (percent-decoded); nil when it is none of the contacts'. A UID may hold
    /// any character; one that ends in `/history` or `/photo` reads as those routes.
    static func contactsRoute(_ path: UnsafePointer<CChar>) -> ContactsRoute? {
        // Most requests are the status page's: compared in place first, as every request asks.
        guard
            strncmp(path, "/api/", 5) == 0 || strncmp(path, "/contacts", 9) == 0 || strcmp(path, "/trash") == 0
                || strcmp(path, "/restore") == 0 || strcmp(path, "/tokens") == 0
        else { return nil }
        let path = String(cString: path)
        switch path {
        case "/api/contacts": return .list
        case "/api/trash": return .trash
        case "/api/changes": return .changes
        case "/api/export": return .export
        case "/contacts", "/contacts/": return .listPage
        case "/trash": return .trashPage
        case "/restore": return .restoreForm
        case "/tokens": return .tokensPage
        default: break
        }
        if path.hasPrefix("/api/contacts/") {
            let rest = String(path.dropFirst("/api/contacts/".count))
            if rest.hasSuffix("/history"), rest.count > 8 { return .history(String(rest.dropLast(8))) }
            if rest.hasSuffix("/photo"), rest.count > 6 { return .photo(String(rest.dropLast(6))) }
            return rest.isEmpty ? nil : .contact(rest)
        }
        if path.hasPrefix("/contacts/") {
            let rest = String(path.dropFirst("/contacts/".count))
            return rest.isEmpty ? nil : .contactPage(rest)
        }
        return nil
    }

    /// The body a request may have on `path`, and whether it is kept: a form's, a card's (PUT on a contact), else
    /// none worth keeping.
    static func bodyLimit(_ path: UnsafePointer<CChar>, method: UnsafePointer<CChar>) -> (limit: Int, kept: Bool) {
        if isForm(path) {
            return (maxFormBytes, true)
        }
        if strcmp(method, "PUT") == 0, strncmp(path, "/api/contacts/", 14) == 0 { return (maxCardBytes, true) }
        return (maxBodyBytes, false)
    }

    /// Who reads the contacts.
    enum ContactsReader {
        /// A paired browser, with its secret (whose token goes into the page's forms).
        case browser(PairedBrowsers.Browser, PairingSecret)
        /// The page's password was given (checked before the routes), in a browser that is not paired.
        case password
        /// A program's token.
        case token(name: String, canWrite: Bool)

        var canWrite: Bool {
            if case .token(_, let canWrite) = self { return canWrite }
            return false
        }

        /// Who a write names, in its run's note.
        var writer: String {
            switch self {
            case .browser: "the page"
            case .password: "the page"
            case .token(let name, _): "API token " + name
            }
        }
    }

    /// The reader a bearer token names, or the refusal: a wrong token counts as a wrong password does
    /// (``PasswordAttempts``), and is never logged.
    func tokenReader(_ connection: OpaquePointer, _ bearer: String) -> Result<ContactsReader, ContactsRefusal> {
        let client = clientAddress(connection)
        let key = PasswordAttempts.key(for: client)
        let now = clock()
        if let wait = attempts.withLock({ $0.wait(for: key, now: now) }) {
            return .failure(ContactsRefusal(.tooManyRequests(retryAfter: wait)))
        }
        guard let access = tokens?.check(bearer: bearer) else {
            let (failures, _) = attempts.withLock { $0.failed(key, now: now) }
            logger.notice(
                "Unknown or revoked API token",
                metadata: ["status.client": "\(client)", "status.failures": "\(failures)"])
            return .failure(
                ContactsRefusal(
                    .reply(
                        .error(
                            401, "This API token is unknown or was revoked: make one with `contactbox token create`.",
                            headers: [("WWW-Authenticate", "Bearer realm=\"ContactBox\", error=\"invalid_token\"")]))))
        }
        attempts.withLock { $0.succeeded(key, now: now) }
        return .success(.token(name: access.name, canWrite: access.canWrite))
    }

    /// Who reads the contacts (`token`: what a bearer token named), or the refusal.
    func contactsReader(
        _ connection: OpaquePointer, token: ContactsReader?, isPage: Bool
    ) -> Result<ContactsReader, ContactsRefusal> {
        if let token { return .success(token) }
        if let secret = pairingSecret(connection), case .paired(let browser) = pairings.standing(secret) {
            return .success(.browser(browser, secret))
        }
        if hasPassword { return .success(.password) }
        if isPage {
            var body = ByteWriter(capacity: 4096)
            ContactsHTML.message(
                "Pair this browser",
                "The household's contacts are shown to a browser paired with the box, or with the page's password. On "
                    + "the status page, choose Pair this browser, then press the button on the box.", into: &body)
            return .failure(ContactsRefusal(.reply(Reply(status: 403, contentType: Reply.html, body: body.bytes))))
        }
        return .failure(
            ContactsRefusal(
                .reply(
                    .error(
                        401,
                        "The contacts' API needs a token: `contactbox token create NAME`, sent as "
                            + "`Authorization: Bearer TOKEN`.",
                        headers: [("WWW-Authenticate", "Bearer realm=\"ContactBox\"")]))))
    }

    /// A refusal on its way out of a check: made and answered on MHD's one thread (a `Response` may hold a
    /// download's stream, which is no `Sendable`).
    struct ContactsRefusal: Error, @unchecked Sendable {
        let response: Response
        init(_ response: Response) { self.response = response }
    }

    /// The answer on a contacts' route.
    func answerContacts(
        _ route: ContactsRoute, _ connection: OpaquePointer, method: UnsafePointer<CChar>, body: [UInt8],
        token: ContactsReader?
    ) -> Response {
        guard let contacts else { return .notFound }
        let isPage: Bool
        switch route {
        case .listPage, .contactPage, .trashPage, .restoreForm, .tokensPage: isPage = true
        default: isPage = false
        }
        let reader: ContactsReader
        switch contactsReader(connection, token: token, isPage: isPage) {
        case .success(let found): reader = found
        case .failure(let refusal): return refusal.response
        }
        let isRead = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0
        do throws(ContactsError) {
            switch route {
            case .contact(let uid) where strcmp(method, "PUT") == 0 || strcmp(method, "DELETE") == 0:
                return try write(uid: uid, connection, method: method, body: body, reader: reader, contacts: contacts)
            case .restoreForm:
                guard strcmp(method, "POST") == 0 else { return .methodNotAllowed(allow: "POST") }
                return restore(connection, body: body, contacts: contacts)
            case .tokensPage where strcmp(method, "POST") == 0:
                return changeTokens(connection, body: body)
            case .contact:
                guard isRead else { return .methodNotAllowed(allow: "GET, HEAD, PUT, DELETE") }
            default:
                guard isRead else { return .methodNotAllowed(allow: "GET, HEAD") }
            }
            return try read(route, connection, reader: reader, contacts: contacts)
        } catch {
            if error.status >= 500 {
                logger.error("Contacts could not be read", metadata: ["error": "\(error.message)"])
            }
            if isPage {
                var page = ByteWriter(capacity: 4096)
                ContactsHTML.message(error.status == 404 ? "Not found" : "Not now", error.message, into: &page)
                return .reply(Reply(status: UInt32(error.status), contentType: Reply.html, body: page.bytes))
            }
            return .reply(.error(error.status, error.message))
        }
    }

    // MARK: Reading

    private func read(
        _ route: ContactsRoute, _ connection: OpaquePointer, reader: ContactsReader, contacts: any ContactsBackend
    ) throws(ContactsError) -> Response {
        let ifNoneMatch = header(connection, "If-None-Match")
        var w = ByteWriter(capacity: 16 * 1024)
        switch route {
        case .list:
            let page = try contacts.list(
                search: argument(connection, "q"), after: argument(connection, "after"),
                limit: try limit(connection))
            ContactsJSON.page(page, into: &w)
            return .reply(.json(w, ifNoneMatch: ifNoneMatch))
        case .contact(let uid):
            // One read: a deleted contact answers with its last version, which says so.
            let found = try contacts.contact(uid: uid)
            guard let detail = found, !detail.deleted else {
                throw ContactsError(
                    status: 404,
                    found == nil
                        ? "No contact has this UID."
                        : "This contact was deleted: it is in the trash (/api/trash), its versions at "
                            + "/api/contacts/UID/history.")
            }
            if (header(connection, "Accept") ?? "").lowercased().contains("text/vcard") {
                let card = try wholeExport(contacts.export(uid: uid, asOf: nil))
                var reply = Reply(status: 200, contentType: Reply.vcard, body: card)
                reply.headers = [("ETag", "\"\(detail.summary.hash)\"")]
                reply.cacheControl = "private, no-cache"
                reply.policy = Reply.dataPolicy
                if let ifNoneMatch, Reply.entityTags(ifNoneMatch).contains("\"\(detail.summary.hash)\"") {
                    reply.status = UInt32(MHD_HTTP_NOT_MODIFIED)
                    reply.body = []
                }
                return .reply(reply)
            }
            ContactsJSON.detail(detail, into: &w)
            return .reply(.json(w, etag: detail.summary.hash, ifNoneMatch: ifNoneMatch))
        case .history(let uid):
            let page = try contacts.versions(
                uid: uid, before: try number(connection, "before"), limit: try limit(connection))
            ContactsJSON.versions(page, into: &w)
            return .reply(.json(w, ifNoneMatch: ifNoneMatch))
        case .photo(let uid):
            guard let photo = try contacts.photo(uid: uid) else {
                throw ContactsError(status: 404, "This contact has no photo a browser may show.")
            }
            return .reply(
                Reply(
                    status: 200, contentType: photo.mediaType, body: photo.bytes, cacheControl: "private, max-age=60",
                    policy: Reply.dataPolicy))
        case .trash:
            let page = try contacts.trash(after: argument(connection, "after"), limit: try limit(connection))
            ContactsJSON.trash(page, into: &w)
            return .reply(.json(w, ifNoneMatch: ifNoneMatch))
        case .changes:
            return try changes(connection, contacts: contacts)
        case .export:
            return try export(connection, contacts: contacts)
        case .listPage:
            let search = argument(connection, "q").flatMap { $0.trimmingWhitespace.isEmpty ? nil : $0 }
            let page = try contacts.list(search: search, after: argument(connection, "after"), limit: 100)
            ContactsHTML.list(page, search: search, into: &w)
            return .reply(Reply(status: 200, contentType: Reply.html, body: w.bytes))
        case .contactPage(let uid):
            guard let detail = try contacts.contact(uid: uid) else {
                throw ContactsError(status: 404, "No contact has this UID.")
            }
            let versions = try contacts.versions(uid: uid, before: try number(connection, "before"), limit: 20)
            ContactsHTML.contact(detail, versions: versions, formToken: formToken(reader), into: &w)
            return .reply(Reply(status: 200, contentType: Reply.html, body: w.bytes))
        case .trashPage:
            let page = try contacts.trash(after: argument(connection, "after"), limit: 100)
            ContactsHTML.trash(page, formToken: formToken(reader), into: &w)
            return .reply(Reply(status: 200, contentType: Reply.html, body: w.bytes))
        case .tokensPage:
            return tokensPage(reader: reader)
        case .restoreForm:
            return .methodNotAllowed(allow: "POST")
        }
    }

    /// The forms' anti-forgery token: a paired browser's only.
    private func formToken(_ reader: ContactsReader) -> String? {
        if case .browser(_, let secret) = reader { return secret.token }
        return nil
    }

    /// A query argument, as MHD decoded it.
    func argument(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, name).map { String(cString: $0) }
    }

    private func number(_ connection: OpaquePointer, _ name: String) throws(ContactsError) -> Int64? {
        guard let text = argument(connection, name) else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw ContactsError(status: 400, "\(name) must be a whole number, as the API gave it.")
        }
        return value
    }

    /// `limit`, 1 to 100; 100 when not given.
    private func limit(_ connection: OpaquePointer) throws(ContactsError) -> Int {
        guard let value = try number(connection, "limit") else { return 100 }
        guard (1...100).contains(value) else { throw ContactsError(status: 400, "limit must be 1 to 100.") }
        return Int(value)
    }

    /// A whole export of one card (a few chunks at most).
    private func wholeExport(_ export: any VCardExport) throws(ContactsError) -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try export.next() { bytes += chunk }
        return bytes
    }

    // MARK: The changes feed

    /// `GET /api/changes?since=SEQ&limit=N[&feed=longpoll&timeout=MS]`. A long poll with nothing to give waits
    /// (``LongPolls``); MHD calls this again for it when it is resumed.
    private func changes(_ connection: OpaquePointer, contacts: any ContactsBackend) throws(ContactsError) -> Response {
        let now = clock()
        var waiter: LongPolls.Waiter
        if let waiting = longPolls.waiter(connection) {
            waiter = waiting
        } else {
            let since = try number(connection, "since") ?? 0
            let feed = argument(connection, "feed") ?? "normal"
            guard feed == "normal" || feed == "longpoll" else {
                throw ContactsError(status: 400, "feed must be normal or longpoll.")
            }
            let timeout = min(try number(connection, "timeout") ?? 60_000, LongPolls.maxTimeout.wholeMilliseconds)
            waiter = LongPolls.Waiter(
                since: since, limit: try limit(connection), deadline: feed == "longpoll" ? now + timeout : now,
                client: clientAddress(connection))
        }
        let page = try contacts.changes(since: waiter.since, limit: waiter.limit)
        if page.results.isEmpty, now < waiter.deadline, !longPolls.isStopping {
            if longPolls.waiter(connection) == nil {
                guard longPolls.begin(connection, waiter) else {
                    return .reply(
                        .error(
                            503, "Too many long polls wait already; ask again in a few seconds.",
                            headers: [("Retry-After", "5")]))
                }
                deadlines.extend(connection, by: .milliseconds(waiter.deadline - now) + RequestDeadlines.defaultLimit)
            }
            if longPolls.suspend(connection) { return .suspended }
        }
        longPolls.end(connection)
        var w = ByteWriter(capacity: 128 + 96 * page.results.count)
        ContactsJSON.changes(page, into: &w)
        return .reply(.json(w, ifNoneMatch: nil))
    }

    // MARK: Downloads

    /// `GET /api/export[?uid=UID][&as_of=TIME]`: one `.vcf`, streamed.
    private func export(_ connection: OpaquePointer, contacts: any ContactsBackend) throws(ContactsError) -> Response {
        let uid = argument(connection, "uid")
        var asOf: Int64?
        if let text = argument(connection, "as_of"), !text.trimmingWhitespace.isEmpty {
            do {
                asOf = try PointInTime.parse(text, now: wallClockMillis(), localTime: { _ in nil })
            } catch {
                throw ContactsError(
                    status: 400,
                    "as_of is a date and time in UTC (2026-11-20 18:00, or with Z or an offset) or a span back from"
                        + " now (3d, 12h): \(error.description)")
            }
        }
        let export = try contacts.export(uid: uid, asOf: asOf)
        let day = CivilDate((asOf ?? wallClockMillis()) / 1000)
        let filename =
            (uid == nil ? "contacts" : "contact")
            + "-\(day.year)-\(day.month < 10 ? "0" : "")\(day.month)-\(day.day < 10 ? "0" : "")\(day.day).vcf"
        let logger = self.logger
        return .stream(
            ExportStream(export, filename: filename, deadlines: deadlines, connection: connection) { error in
                logger.error("A contacts download ended early", metadata: ["error": "\(error.message)"])
            })
    }

    // MARK: Writing

    /// `PUT` and `DELETE /api/contacts/UID`: a token with `--write`, or a paired browser with its token.
    private func write(
        uid: String, _ connection: OpaquePointer, method: UnsafePointer<CChar>, body: [UInt8], reader: ContactsReader,
        contacts: any ContactsBackend
    ) throws(ContactsError) -> Response {
        var writer = reader.writer
        if !reader.canWrite {
            if case .token = reader {
                throw ContactsError(
                    status: 403, "This API token only reads: make one with `contactbox token create NAME --write`.")
            }
            guard case .paired(let browser) = pairedSender(connection, form: [:]) else {
                throw ContactsError(status: 403, "Changes need a paired browser, or an API token made with --write.")
            }
            writer = "the page (browser \(browser.id))"
        }
        let ifMatch = header(connection, "If-Match").flatMap { Reply.entityTags($0).first }.map {
            $0 == "*" ? $0 : String($0.dropFirst().dropLast())
        }
        let outcome: WriteOutcome
        if strcmp(method, "PUT") == 0 {
            let type = (header(connection, "Content-Type") ?? "text/vcard").lowercased()
            guard type.hasPrefix("text/vcard") || type.hasPrefix("text/x-vcard") || type.hasPrefix("text/directory")
            else { throw ContactsError(status: 415, "Send the card as text/vcard.") }
            outcome = try contacts.write(.put(uid: uid, vcard: body, ifMatch: ifMatch, by: writer))
        } else {
            outcome = try contacts.write(.delete(uid: uid, ifMatch: ifMatch, by: writer))
        }
        longPolls.resumeAll()
        logger.notice(
            outcome.contact == nil ? "Contact deleted through the API" : "Contact written through the API",
            metadata: ["contact.uid": "\(printable(uid))", "run": "\(outcome.runID)", "by": "\(writer)"])
        var w = ByteWriter(capacity: 512)
        ContactsJSON.outcome(outcome, into: &w)
        var reply = Reply.json(w, etag: outcome.contact?.hash, ifNoneMatch: nil, status: outcome.created ? 201 : 200)
        if outcome.created { reply.headers.append(("Location", "/api/contacts/" + FormEncoding.escape(uid))) }
        return .reply(reply)
    }

    /// A form posted from a paired browser with its token: its fields, the browser and its secret (whose token the
    /// answer's forms carry), or the refusal: another site's request is told so, not that the browser is not paired.
    private func pairedForm(
        _ connection: OpaquePointer, body: [UInt8]
    ) -> Result<([String: String], PairedBrowsers.Browser, PairingSecret), ContactsRefusal> {
        guard let form = FormBody.fields(body) else {
            return .failure(
                ContactsRefusal(
                    .badRequest(
                        "The form could not be read: send its fields as application/x-www-form-urlencoded.")))
        }
        let sender = pairedSender(connection, form: form)
        guard case .paired(let browser) = sender, let secret = pairingSecret(connection) else {
            if case .refused(let refusal) = sender { return .failure(ContactsRefusal(refusal)) }
            return .failure(ContactsRefusal(.notPaired))
        }
        return .success((form, browser, secret))
    }

    /// `POST /restore` (`uid`, `version`, `step`): `preview` shows what would change; `confirm` restores, from a
    /// browser paired within the last 10 minutes; `arm` hands it to the box's button.
    private func restore(_ connection: OpaquePointer, body: [UInt8], contacts: any ContactsBackend) -> Response {
        let (form, browser, secret): ([String: String], PairedBrowsers.Browser, PairingSecret)
        switch pairedForm(connection, body: body) {
        case .success(let sent): (form, browser, secret) = sent
        case .failure(let refusal): return refusal.response
        }
        guard let uid = form["uid"], let version = form["version"].flatMap({ Int64($0) }) else {
            return .badRequest("Which version? The form gives uid and version.")
        }
        let confirmHere = pairings.wallClock() - browser.pairedAt < Self.confirmOnPageWithin
        var w = ByteWriter(capacity: 8192)
        do throws(ContactsError) {
            switch form["step"] {
            case "preview":
                let changes = try contacts.previewRestore(uid: uid, historyID: version)
                let name = try contacts.contact(uid: uid)?.summary.name ?? ""
                ContactsHTML.restorePreview(
                    uid: uid, name: name, version: version, changes: changes, confirmHere: confirmHere,
                    formToken: secret.token, into: &w)
            case "confirm":
                guard confirmHere else {
                    return .reply(
                        .error(
                            403,
                            "This browser was paired more than 10 minutes ago: confirm with the box's button instead."))
                }
                let outcome = try contacts.write(
                    .restore(uid: uid, historyID: version, by: "the page (browser \(browser.id))"))
                longPolls.resumeAll()
                logger.notice(
                    "Contact restored on the status page",
                    metadata: ["contact.uid": "\(printable(uid))", "run": "\(outcome.runID)"])
                ContactsHTML.restoreResult(
                    uid: uid,
                    text: "Restored (run \(outcome.runID)). The next sync carries it to the address books; the status "
                        + "page can undo it.", into: &w)
            case "arm":
                guard let armRestore else {
                    return .reply(.error(503, "This box cannot confirm with its button now."))
                }
                let name = try contacts.contact(uid: uid)?.summary.name ?? ""
                guard armRestore(PageRestore(uid: uid, historyID: version, name: name)) else {
                    return .conflict("Another change waits for the box's button: confirm or cancel it first.")
                }
                ContactsHTML.restoreResult(
                    uid: uid,
                    text: "Now press and hold the box's button (3 seconds) within 2 minutes to restore this version. "
                        + "The status page shows when it is done.", into: &w)
            default:
                return .badRequest("step must be preview, confirm or arm.")
            }
        } catch {
            ContactsHTML.message(error.status == 404 ? "Not found" : "Not restored", error.message, into: &w)
            return .reply(Reply(status: UInt32(error.status), contentType: Reply.html, body: w.bytes))
        }
        return .reply(Reply(status: 200, contentType: Reply.html, body: w.bytes))
    }
}

/// A restore asked for on the page, to be confirmed by a long press of the box's button.
public struct PageRestore: Sendable, Equatable {
    public var uid: String
    /// The history row whose version before it is put back.
    public var historyID: Int64
    /// The contact's name, for the page and the log.
    public var name: String

    public init(uid: String, historyID: Int64, name: String) {
        self.uid = uid
        self.historyID = historyID
        self.name = name
    }
}

extension RequestHandler {
    /// `GET /tokens`: the API tokens, and for a paired browser the forms that make and revoke them.
    func tokensPage(reader: ContactsReader) -> Response {
        guard let tokens else { return .notFound }
        var w = ByteWriter(capacity: 4096)
        ContactsHTML.tokens(tokens.list(), formToken: formToken(reader), created: nil, problem: nil, into: &w)
        return .reply(Reply(status: 200, contentType: Reply.html, body: w.bytes))
    }

    /// `POST /tokens` from a paired browser with its token: `action` `create` (`name`, `write`: `on` for a token that
    /// writes) shows the new token once; `revoke` (`name`).
    func changeTokens(_ connection: OpaquePointer, body: [UInt8]) -> Response {
        guard let tokens else { return .notFound }
        let (form, browser, secret): ([String: String], PairedBrowsers.Browser, PairingSecret)
        switch pairedForm(connection, body: body) {
        case .success(let sent): (form, browser, secret) = sent
        case .failure(let refusal): return refusal.response
        }
        let name = form["name"]?.trimmingWhitespace ?? ""
        var created: String?
        var problem: String?
        var status: UInt32 = 200
        do throws(APITokens.Failure) {
            switch form["action"] {
            case "create":
                created = try tokens.create(name: name, write: form["write"] == "on")
                logger.notice(
                    "API token made on the status page",
                    metadata: ["token.name": "\(name)", "pairing.browser": "\(browser.id)"])
            case "revoke":
                if try tokens.revoke(name: name) {
                    logger.notice(
                        "API token revoked on the status page",
                        metadata: ["token.name": "\(name)", "pairing.browser": "\(browser.id)"])
                } else {
                    problem = "No token is named \(name)."
                    status = 404
                }
            default:
                return .badRequest("action must be create or revoke.")
            }
        } catch {
            problem = error.description
            status = 400
        }
        var w = ByteWriter(capacity: 4096)
        ContactsHTML.tokens(
            tokens.list(), formToken: secret.token, created: created.map { (name, $0) }, problem: problem, into: &w)
        return .reply(Reply(status: status, contentType: Reply.html, body: w.bytes))
    }
}

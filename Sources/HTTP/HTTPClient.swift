import CCurl
import Logging

/// A blocking HTTP client over libcurl for one thread (the sync worker's).
///
/// One multi handle runs every transfer, so its connection cache keeps connections alive between calls;
/// a small pool of easy handles (at most `maxConcurrent`) is reused. Redirects are followed here, not by
/// curl, so that credentials only go where they belong (see `RedirectPolicy`). Retrying failed requests
/// is the caller's decision: a 429 or 503 comes back as a response, with `header("Retry-After")`.
public final class HTTPClient {
    private let configuration: HTTPConfiguration
    private let logger: Logger
    private let multi: MultiHandle
    private var idle: [EasyHandle] = []
    /// Every transfer in the multi handle now, whichever call started it.
    private var attached: [Attached] = []
    private var handleCount = 0
    /// Set for the rest of the client's life once a server asked for Digest under `.automatic`.
    private var usesDigest: Bool
    /// Under `.automatic`, whether a server's challenge has told which scheme it takes: until then each request asks
    /// first (sends no credentials, answers the 401); after, Basic goes with the request, or Digest answers at once.
    private var schemeKnown: Bool
    private var counts: [String: Int] = [:]
    private var connections = 0
    private var resumedSessions = 0

    /// Whether requests carry credentials: a password, or bearer tokens.
    private var hasCredentials: Bool { configuration.credentials != nil || configuration.bearer != nil }

    /// Requests sent, by method, including redirect hops and authentication round trips.
    public var requestCounts: [String: Int] { counts }

    /// Connections opened (TCP, with a TLS handshake over https), summed over every hop from libcurl's
    /// `CURLINFO_NUM_CONNECTS`: a request on a kept-alive connection adds none.
    public var connectionsOpened: Int { connections }

    /// Of `connectionsOpened`, those whose TLS handshake resumed a session of an earlier connection (the client's
    /// easy handles share one session cache): an abbreviated handshake, no certificate sent again.
    public var tlsSessionsResumed: Int { resumedSessions }

    static let initializeLibcurl: Void = {
        // > This function is not thread safe [before 7.84]: call it once, before any other thread runs curl.
        // Swift runs this initializer exactly once, whichever thread gets here first.
        _ = ccurl_lean_openssl_init()
        _ = curl_global_init(ccurl_global_default)
    }()

    public init(_ configuration: HTTPConfiguration, logger: Logger) throws(HTTPError) {
        guard configuration.maxConcurrent >= 1, configuration.maxRedirects >= 0,
            configuration.connectTimeout >= .zero, configuration.transferTimeout >= .zero,
            configuration.totalTimeout >= .zero
        else {
            throw HTTPError(.other, "Invalid HTTP configuration: limits must not be negative, maxConcurrent at least 1")
        }
        self.configuration = configuration
        self.logger = logger
        multi = try MultiHandle(maxConnections: configuration.maxConcurrent)
        usesDigest = configuration.auth == .digest
        schemeKnown = configuration.auth != .automatic
    }

    deinit {
        // Easy handles go before the multi handle whose connections they used.
        for entry in attached { multi.remove(entry.easy) }
        attached.removeAll()
        idle.removeAll()
    }

    struct Attached {
        var easy: EasyHandle
        var transfer: Transfer
    }

    /// Sends `request` and streams the response body to `onBody` in the chunks curl delivers (at most
    /// 16 KiB each; nothing is accumulated). Bodies of redirects and authentication challenges are not
    /// delivered. A throw from `onBody` aborts the transfer and is rethrown; other failures throw `HTTPError`.
    public func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse
    {
        try withoutActuallyEscaping(onBody) { sink in
            let transfer = Transfer(index: 0, request: request, hasCredentials: hasCredentials)
            transfer.context.sink = sink
            defer { transfer.context.sink = nil }
            var outcome: Result<HTTPResponse, any Error> = .failure(HTTPError(.other, "The request did not run"))
            try run([transfer], maxConcurrent: 1) { _, result in outcome = result }
            return try outcome.get()
        }
    }

    /// Sends `request` and collects the response body, failing with `.tooLarge` past `maxBody` bytes.
    public func send(_ request: HTTPRequest, maxBody: Int = 4 << 20) throws(HTTPError) -> (HTTPResponse, [UInt8]) {
        let collector = BodyCollector(limit: maxBody)
        let transfer = Transfer(index: 0, request: request, hasCredentials: hasCredentials)
        collector.attach(to: transfer.context)
        var outcome: Result<HTTPResponse, any Error> = .failure(HTTPError(.other, "The request did not run"))
        do {
            try run([transfer], maxConcurrent: 1) { _, result in outcome = result }
            return (try outcome.get(), collector.bytes)
        } catch {
            throw HTTPError.wrapping(error)
        }
    }

    /// Runs independent requests with at most `maxConcurrent` in flight, calling `completion(index, result)`
    /// on this thread as each finishes, in the order they finish. A throw from `completion` stops the
    /// transfers still running and is rethrown.
    /// `maxConcurrent` lowers the configured limit for this call (a server that refuses overlapping writes).
    public func sendAll(
        _ requests: [HTTPRequest], maxBody: Int = 4 << 20, maxConcurrent: Int? = nil,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        var collectors: [BodyCollector] = []
        let transfers = requests.enumerated().map { index, request in
            let transfer = Transfer(index: index, request: request, hasCredentials: hasCredentials)
            let collector = BodyCollector(limit: maxBody)
            collector.attach(to: transfer.context)
            collectors.append(collector)
            return transfer
        }
        let limit = max(1, min(configuration.maxConcurrent, maxConcurrent ?? configuration.maxConcurrent))
        try run(transfers, maxConcurrent: limit) { transfer, result in
            let collector = collectors[transfer.index]
            let mapped = result.map { ($0, collector.take()) }.mapError(HTTPError.wrapping)
            try completion(transfer.index, mapped)
        }
    }
}

/// A request started by `HTTPClient.start` and not finished yet: it moves along whenever the client runs any
/// request, and `finish` waits for the rest of it.
public final class PendingRequest {
    let transfer: Transfer

    init(_ transfer: Transfer) {
        self.transfer = transfer
    }
}

@available(*, unavailable)
extension PendingRequest: Sendable {}

extension HTTPClient {
    /// Starts `request` and returns once it is sent, so that the server works on it while the caller does something
    /// else (the next multiget while the last one is written to the store). On a kept-alive connection that is at
    /// once; a new connection (Radicale closes each after one request) is waited for up to `sendWait`, and a
    /// request not out by then goes out when it is finished. Its body waits unread (the transfer pauses at its
    /// first bytes, which curl keeps) until `finish`, which gives it to `onBody` and returns the response: the
    /// caller holds one answer at a time. A request not finished is abandoned by `cancel`.
    public func start(
        _ request: HTTPRequest, onBody: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) -> PendingRequest {
        let transfer = Transfer(index: 0, request: request, hasCredentials: hasCredentials)
        transfer.context.sink = onBody
        transfer.context.holdsBody = true
        do {
            try attach(transfer)
        } catch {
            transfer.outcome = .failure(error)
            return PendingRequest(transfer)
        }
        // A failure shows when the request is finished.
        _ = try? multi.perform()
        let deadline = ContinuousClock.now + Self.sendWait
        while !transfer.context.isBodySent, transfer.outcome == nil, ContinuousClock.now < deadline {
            _ = try? multi.poll(milliseconds: 1)
            _ = try? multi.perform()
        }
        return PendingRequest(transfer)
    }

    /// How long `start` waits for a new connection to take its request: a connection on the same network opens in
    /// a few milliseconds (without this wait, the request went out only after the caller's work on the last page:
    /// `Docs/measurements/speed.md`, "A new connection per request"), one across the Internet may take longer, and
    /// then the caller does not wait.
    static let sendWait = Duration.milliseconds(20)

    /// Waits for a started request to finish (its body delivered to its `onBody`) and returns its response; a
    /// throw from `onBody` is rethrown, other failures throw `HTTPError`.
    public func finish(_ pending: PendingRequest) throws -> HTTPResponse {
        defer { pending.transfer.context.sink = nil }
        releaseBody(pending.transfer)
        while pending.transfer.outcome == nil {
            do {
                try drive()
            } catch {
                cancel(pending)
                throw error
            }
        }
        return try (pending.transfer.outcome ?? .failure(HTTPError(.other, "The request did not run"))).get()
    }

    /// Waits until a started request's response head is in (or the request is over): the moment a server that
    /// builds its whole answer before it sends any (Radicale, Xandikos) is done with it, so that the caller's next
    /// request can go out before this one's body is read. A failure shows when the request is finished. Bounded by
    /// the request's own time limits.
    public func awaitHead(_ pending: PendingRequest) {
        let context = pending.transfer.context
        let isIn = { pending.transfer.outcome != nil || context.headComplete && !context.discardBody }
        while !isIn() {
            do {
                try drive(until: isIn)
            } catch {
                return
            }
        }
    }

    /// Lets a started request's body go on (to its `onBody`, or nowhere once that is dropped).
    private func releaseBody(_ transfer: Transfer) {
        transfer.context.holdsBody = false
        guard transfer.context.isHeld else { return }
        transfer.context.isHeld = false
        if let entry = attached.first(where: { $0.transfer === transfer }) {
            // A failure (the body's first bytes refused by `onBody`) shows when the transfer ends.
            _ = ccurl_easy_unpause(entry.easy.handle)
        }
    }

    /// Abandons a started request (if it is still running) and drops its body callback.
    public func cancel(_ pending: PendingRequest) {
        pending.transfer.context.sink = nil
        releaseBody(pending.transfer)
        detach(pending.transfer)
        if pending.transfer.outcome == nil {
            pending.transfer.outcome = .failure(HTTPError(.aborted, "The request was cancelled"))
        }
    }
}

extension HTTPClient {
    /// `text` with the password replaced by `<redacted>`: for anything a server wrote that goes into a message (a
    /// server may echo what it was sent).
    public func redactingSecret(_ text: String) -> String {
        guard let password = configuration.credentials?.password, !password.isEmpty else { return text }
        return text.replacing(password, with: "<redacted>")
    }
}

@available(*, unavailable)
extension HTTPClient: Sendable {}

extension HTTPClient {
    /// Drives `transfers` through the multi handle, `maxConcurrent` at a time, following redirects and
    /// authentication retries, and reports each final outcome to `finished`. Transfers started by `start` (and not
    /// finished yet) move along too, and keep their outcome for their `finish`: a call may run while another
    /// request is in flight.
    private func run(
        _ transfers: [Transfer], maxConcurrent: Int,
        finished: (Transfer, Result<HTTPResponse, any Error>) throws -> Void
    ) throws {
        var waiting = transfers.reversed() as [Transfer]  // popLast takes them in order
        var running: [Transfer] = []
        defer {
            // Only after a throw: abandon what still runs, and keep the handles for later.
            for transfer in running { detach(transfer) }
        }
        while true {
            while running.count < maxConcurrent, let transfer = waiting.popLast() {
                do {
                    try attach(transfer)
                    running.append(transfer)
                } catch {
                    try finished(transfer, .failure(error))
                }
            }
            if running.isEmpty {
                return
            }
            try drive()
            while let position = running.firstIndex(where: { $0.outcome != nil }) {
                let transfer = running.remove(at: position)
                let outcome = transfer.outcome ?? .failure(HTTPError(.other, "The request did not run"))
                transfer.outcome = nil
                try finished(transfer, outcome)
            }
        }
    }

    /// Moves every attached transfer along as far as it can go, waiting (at most a second) only when none
    /// finished and `until` is still false. A finished one leaves the multi handle with its outcome set; one that
    /// must go again (a redirect, an authentication round trip) is attached again at once.
    private func drive(until: () -> Bool = { false }) throws {
        let stillRunning = try multi.perform()
        var progressed = false
        while let done = multi.nextDone() {
            guard let position = attached.firstIndex(where: { $0.easy.handle == done.easy }) else { continue }
            let entry = attached.remove(at: position)
            multi.remove(entry.easy)
            let outcome = finish(entry.transfer, on: entry.easy, code: done.code)
            entry.easy.release()
            idle.append(entry.easy)
            progressed = true
            switch outcome {
            case .again:
                do {
                    try attach(entry.transfer)
                } catch {
                    entry.transfer.outcome = .failure(error)
                }
            case .done(let result):
                entry.transfer.outcome = result
            }
        }
        if !progressed && stillRunning > 0 && !until() {
            try multi.poll(milliseconds: 1000)
        }
    }

    private func attach(_ transfer: Transfer) throws(HTTPError) {
        attached.append(Attached(easy: try start(transfer), transfer: transfer))
    }

    /// Takes a transfer out of the multi handle before it finished; its handle is kept for later.
    private func detach(_ transfer: Transfer) {
        guard let position = attached.firstIndex(where: { $0.transfer === transfer }) else { return }
        let entry = attached.remove(at: position)
        multi.remove(entry.easy)
        entry.easy.release()
        idle.append(entry.easy)
    }

    private func start(_ transfer: Transfer) throws(HTTPError) -> EasyHandle {
        let easy: EasyHandle
        if let reused = idle.popLast() {
            easy = reused
        } else {
            easy = try EasyHandle(configuration, share: multi.share)
            handleCount += 1
        }
        do {
            let credentials: EasyHandle.HopCredentials
            (transfer.hopUsedBasic, transfer.hopAsked, transfer.hopBearer) = (false, false, nil)
            if !transfer.sendsCredentials {
                credentials = .none
            } else if let bearer = configuration.bearer {
                // The issuer may be asked for a new one here: its own client, its own deadline.
                transfer.hopBearer = try bearer.current()
                credentials = transfer.hopBearer.map { .bearer($0) } ?? .none
            } else if let password = configuration.credentials {
                let asks = !schemeKnown && !transfer.retriedAuthentication
                let auth: EasyHandle.HopAuth = asks ? .ask : usesDigest ? .digest : .basic
                transfer.hopUsedBasic = auth == .basic
                transfer.hopAsked = auth == .ask
                credentials = .password(password, auth)
            } else {
                credentials = .none
            }
            transfer.context.prepareHop(body: transfer.body)
            transfer.context.isIntermediate = { [unowned self, unowned transfer] status, headers in
                isIntermediate(transfer, status: status, headers: headers)
            }
            try easy.configure(
                method: transfer.method, url: transfer.url, headers: try transfer.headerLines(),
                hasBody: transfer.body != nil, bodyCount: transfer.body?.count ?? 0,
                lowSpeedTime: transfer.lowSpeedTime ?? configuration.transferTimeout,
                totalTimeout: try hopTimeout(), credentials: credentials, context: transfer.context)
            transfer.hopStarted = .now
            try multi.add(easy)
            return easy
        } catch {
            easy.release()
            idle.append(easy)
            throw HTTPError(error.kind, error.message, url: transfer.url)
        }
    }

    /// The total time the next hop may take: the configured one, capped by what is left before the deadline.
    private func hopTimeout() throws(HTTPError) -> Duration {
        guard let deadline = configuration.deadline else { return configuration.totalTimeout }
        let left = deadline - .now
        guard left > .zero else {
            throw HTTPError(.timeout, "The time for this remote's turn ran out before the request could be sent")
        }
        return configuration.totalTimeout == .zero ? left : min(configuration.totalTimeout, left)
    }

    private enum HopOutcome {
        case again
        case done(Result<HTTPResponse, any Error>)
    }

    /// Whether a response head belongs to a hop that will be followed by another (its body is not the caller's).
    private func isIntermediate(_ transfer: Transfer, status: Int, headers: [HTTPHeader]) -> Bool {
        if RedirectPolicy.isFollowed(status) && headers.first(named: "Location") != nil {
            return true
        }
        if status == 401 && transfer.hopBearer != nil && !transfer.retriedAuthentication {
            // A bearer token refused (expired early, revoked): once more with a renewed one.
            return true
        }
        if status == 401 && transfer.hopAsked && !transfer.retriedAuthentication {
            // The challenge to a request that asked first, which curl answers in the same transfer; or, if that
            // fails too, one more hop with the scheme now known.
            return true
        }
        return status == 401 && configuration.auth == .automatic && transfer.hopUsedBasic
            && !transfer.retriedAuthentication && offersDigest(headers)
    }

    private func offersDigest(_ headers: [HTTPHeader]) -> Bool {
        headers.contains { header in
            header.name.isEqualIgnoringASCIICase("WWW-Authenticate")
                && header.value.lowercasedASCII().split(whereSeparator: { $0 == "," || $0 == " " }).contains("digest")
        }
    }

    private func finish(_ transfer: Transfer, on easy: EasyHandle, code: CURLcode) -> HopOutcome {
        let context = transfer.context
        let elapsed = ContinuousClock.now - transfer.hopStarted
        counts[transfer.method, default: 0] += max(1, context.responseCount)
        let connected = easy.info(CURLINFO_NUM_CONNECTS) ?? 0
        connections += connected
        if connected > 0, easy.resumedTLSSession == true {
            resumedSessions += 1
        }
        var metadata: Logger.Metadata = [
            "http.method": "\(transfer.method)",
            "http.path": "\(URLParts(transfer.url)?.path ?? "")",
            "http.duration_ms":
                "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ]

        if let error = context.callbackError {
            logger.debug("HTTP request stopped", metadata: metadata)
            return .done(.failure(error))
        }
        guard code == CURLE_OK else {
            let error = HTTPError(
                code: code, detail: easy.errorDetail, url: transfer.url, secret: configuration.credentials?.password)
            metadata["http.error"] = "\(error.kind)"
            logger.debug("HTTP request failed", metadata: metadata)
            return .done(.failure(error))
        }
        metadata["http.status"] = "\(context.status)"
        logger.debug("HTTP request finished", metadata: metadata)
        if transfer.hopAsked, !schemeKnown, let offered = easy.info(CURLINFO_HTTPAUTH_AVAIL) as Int?, offered != 0 {
            // > CURLINFO_HTTPAUTH_AVAIL: a bitmask indicating the authentication method(s) available according to
            // > the previous response. The server answered a challenge: its scheme, for the rest of the client's life.
            usesDigest = UInt(offered) & UInt(ccurl_auth_digest) != 0
            schemeKnown = true
        }

        guard context.discardBody else {
            return .done(.success(HTTPResponse(status: context.status, headers: context.headers, url: transfer.url)))
        }
        if context.status == 401, let token = transfer.hopBearer {
            configuration.bearer?.refused(token)
            transfer.retriedAuthentication = true
            return .again
        }
        if context.status == 401 {
            // Under .automatic, a Digest challenge to our Basic credentials: Digest from now on. (A request that
            // asked first and was refused goes once more, with the scheme the challenge told.)
            if !transfer.hopAsked { usesDigest = true }
            transfer.retriedAuthentication = true
            return .again
        }
        guard transfer.redirects < configuration.maxRedirects else {
            return .done(
                .failure(
                    HTTPError(.protocolError, "More than \(configuration.maxRedirects) redirects", url: transfer.url)))
        }
        // > CURLINFO_REDIRECT_URL: the URL a redirect would take you to, had you enabled FOLLOWLOCATION
        // (resolved against the request URL, as RFC 9110 10.2.2 says). Curl writes the user name and password
        // into it for a relative Location: they are removed, credentials come from the configuration only.
        guard let target = (easy.info(CURLINFO_REDIRECT_URL) as String?).map(redactingUserInfo) else {
            return .done(.failure(HTTPError(.protocolError, "A redirect without a usable Location", url: transfer.url)))
        }
        if let refused = transfer.redirect(status: context.status, to: target) {
            logger.warning("Redirect refused", metadata: ["http.error": "\(refused.message)"])
            return .done(.failure(refused))
        }
        return .again
    }
}

import HTTP

/// One multistatus answer being read: its body fed to the parser chunk by chunk as it arrives, the start of it kept
/// in case it is an error page, and the whole checked once the response is complete. The same for a request sent
/// and read at once (`CardDAVClient.multistatus`) and for one started earlier (`PendingMultiget`).
final class MultistatusReception {
    let method: String
    let url: String
    private let parser: MultistatusParser
    private var callerError: (any Error)?
    private var parseError: (any Error)?
    private var prefix: [UInt8] = []

    init(method: String, url: String, onResponse: @escaping (MultistatusResponse) throws -> Void) {
        self.method = method
        self.url = url
        var caught: ((any Error) -> Void)?
        parser = MultistatusParser { response in
            do {
                try onResponse(response)
            } catch {
                caught?(error)
                throw error
            }
        }
        caught = { [unowned self] error in callerError = error }
    }

    /// One chunk of the body. A parse error is kept (the body may be an HTML error page: the status decides once
    /// it is known); an error of the caller's stops the transfer.
    func receive(_ chunk: UnsafeRawBufferPointer) throws {
        if prefix.count < CardDAVClient.errorBodyPrefix {
            prefix += chunk.prefix(CardDAVClient.errorBodyPrefix - prefix.count)
        }
        guard parseError == nil else { return }
        do {
            try parser.feed(chunk)
        } catch {
            if callerError != nil { throw error }
            parseError = error
        }
    }

    /// The error to throw when the request itself failed: the caller's own, else the classified network error.
    func failure(_ error: any Error, client: CardDAVClient) -> any Error {
        if let callerError { return callerError }
        return client.networkError(error, method, url)
    }

    /// Checks the complete response: the classified error for any status but 207, `.malformedResponse` for a body
    /// that is not a multistatus, and for another 2xx, which is no CardDAV answer (an HTML error page, a login
    /// page), with what came instead.
    func complete(_ response: HTTPResponse, client: CardDAVClient) throws -> MultistatusSummary {
        if response.status != 207, (200..<300).contains(response.status) {
            let instead = NonDAVAnswer.describe(response, body: prefix[...])
            var error = CardDAVError(
                .malformedResponse, "\(method) \(DAVURL.path(of: url)): \(response.status) with \(instead)")
            error.message = client.transport.redactingSecret(error.message)
            error.responseStatus = response.status
            throw error
        }
        guard response.status == 207 else {
            throw client.failure(response, method: method, url: url, body: prefix[...])
        }
        let what = "\(method) \(DAVURL.path(of: url)): 207"
        if let compressed = CardDAVClient.compression(response, body: prefix[...]) {
            throw CardDAVError(.malformedResponse, "\(what) with \(compressed)")
        }
        if parseError == nil {
            do {
                _ = try parser.finish()
            } catch {
                if let callerError { throw callerError }
                parseError = error
            }
        }
        if let parseError {
            throw CardDAVError(
                .malformedResponse, "\(what) with \((parseError as? CardDAVError)?.message ?? "\(parseError)")")
        }
        guard parser.summary.rootElement == "multistatus" else {
            throw CardDAVError(.malformedResponse, "\(what) without a DAV:multistatus body")
        }
        return parser.summary
    }
}

@available(*, unavailable)
extension MultistatusReception: Sendable {}

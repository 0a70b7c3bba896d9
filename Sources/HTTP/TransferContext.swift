import CCurl
import SystemSupport

/// What libcurl's callbacks read and write during one hop of a transfer: the request body going out, the
/// response head coming in, and where the body goes. Passed to curl as an unretained pointer; the
/// `Transfer` that owns it outlives the hop.
final class TransferContext {
    typealias Sink = (UnsafeRawBufferPointer) throws -> Void

    // Upload.
    var body: HTTPBody = .bytes([])
    var uploadOffset = 0

    // The response being received. A hop can see several heads: 1xx interim responses, and the 401
    // that curl answers itself with Digest.
    var status = 0
    var headers: [HTTPHeader] = []
    var responseCount = 0
    var headComplete = false
    /// Set at the end of a head whose body is not the caller's (a redirect, an authentication retry).
    var discardBody = false

    /// Decides, at the end of each final head, whether its body is discarded (true) or delivered.
    var isIntermediate: (Int, [HTTPHeader]) -> Bool = { _, _ in false }
    var sink: Sink?
    /// Bodies announced larger than this fail before a byte is read.
    var limit: Int?
    /// The error that stopped the transfer from inside a callback, rethrown once curl returns.
    var callbackError: (any Error)?
    /// Set for a request from `HTTPClient.start`: the body's first bytes pause the transfer (`isHeld`; curl keeps
    /// them, the rest stays in the socket) until `HTTPClient.finish`.
    var holdsBody = false
    var isHeld = false

    func prepareHop(body: HTTPBody?) {
        self.body = body ?? .bytes([])
        uploadOffset = 0
        status = 0
        headers = []
        responseCount = 0
        headComplete = false
        discardBody = false
        callbackError = nil
    }

    /// One header line as curl delivers it, CRLF included.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            // A new status line: "HTTP/1.1 200 OK", "HTTP/2 200".
            let fields = text.split(separator: " ", maxSplits: 2)
            status = fields.count >= 2 ? Int(fields[1]) ?? 0 : 0
            headers = []
            headComplete = false
            discardBody = false
            if status >= 200 {
                responseCount += 1
            }
            return true
        }
        if end == 0 {
            guard status >= 200 else { return true }  // the end of a 1xx head: the real one follows
            headComplete = true
            discardBody = isIntermediate(status, headers)
            if !discardBody, let limit, let length = headers.first(named: "Content-Length").flatMap({ Int($0) }),
                length > limit
            {
                callbackError = HTTPError(.tooLarge, "The response body (\(length) bytes) exceeds \(limit) bytes")
                return false
            }
            return true
        }
        if let first = text.first, first == " " || first == "\t", !headers.isEmpty {
            // An obsolete folded continuation line (RFC 9112 5.2).
            headers[headers.count - 1].value += " " + text[...].trimmingWhitespace
            return true
        }
        guard let colon = text.firstIndex(of: ":") else { return true }
        headers.append(HTTPHeader(String(text[..<colon]), text[text.index(after: colon)...].trimmingWhitespace))
        return true
    }

    /// Whether the body's bytes delivered now wait (the transfer pauses), as `holdsBody` asks.
    func holds() -> Bool {
        guard holdsBody, headComplete, !discardBody else { return false }
        isHeld = true
        return true
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if discardBody || !headComplete {
            return true
        }
        guard let sink else { return true }
        do {
            try sink(bytes)
            return true
        } catch {
            callbackError = error
            return false
        }
    }

    /// The whole request body is with curl (which writes it out at once: no `Expect: 100-continue` below 1 MiB).
    var isBodySent: Bool { uploadOffset == body.count }

    /// The next piece of the body, as much as curl's buffer takes: a spooled body is read from its file piece by
    /// piece, never held whole. A spool file that cannot be read stops the transfer, with why (the server would
    /// otherwise wait for the bytes its Content-Length announced until the timeout).
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let wanted = min(buffer.count, body.count - uploadOffset)
        guard wanted > 0 else { return 0 }
        let count: Int
        switch body {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[uploadOffset..<(uploadOffset + wanted)]))
            }
            count = wanted
        case .spooled(let file):
            count = file.read(at: uploadOffset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            guard count > 0 else {
                callbackError = HTTPError(
                    .other, "The request body (\(file.count) bytes) could not be read from its file at \(uploadOffset)")
                return ccurl_readfunc_abort
            }
        }
        uploadOffset += count
        return count
    }

    /// Curl rewinds the body when it must send it again (an authentication round trip).
    func seekBody(to offset: Int) -> Bool {
        guard offset >= 0 && offset <= body.count else { return false }
        uploadOffset = offset
        return true
    }
}

@available(*, unavailable)
extension TransferContext: Sendable {}

/// libcurl's C callbacks: each finds its `TransferContext` in the user data pointer.
enum CurlCallbacks {
    static let write: curl_write_callback = { data, size, count, userdata in
        guard let userdata else { return 0 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        if context.holds() { return ccurl_writefunc_pause }
        let total = size * count
        let accepted = context.receiveBody(UnsafeRawBufferPointer(start: data, count: total))
        return accepted ? total : 0
    }

    static let header: curl_write_callback = { data, size, count, userdata in
        guard let userdata, let data else { return 0 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        let total = size * count
        let line = UnsafeRawBufferPointer(start: data, count: total)
        return context.receiveHeaderLine(line) ? total : 0
    }

    static let read: curl_read_callback = { buffer, size, count, userdata in
        guard let userdata, let buffer else { return ccurl_readfunc_abort }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        return context.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }

    static let seek: curl_seek_callback = { userdata, offset, origin in
        guard let userdata, origin == SEEK_SET else { return ccurl_seekfunc_cantseek }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        return context.seekBody(to: Int(offset)) ? ccurl_seekfunc_ok : ccurl_seekfunc_cantseek
    }
}

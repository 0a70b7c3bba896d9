import FuzzSupport
import Glibc
import Logging
import StatusServer

/// One input: an HTTP request sent to the status server, in this process, over a loopback connection.
/// libmicrohttpd parses the HTTP; what is fuzzed is our handling of the parsed request: the routing, the body
/// limits, the Basic password check (`RequestGuard.constantTimeEqual`) and the origin check
/// (`RequestGuard.isSameOrigin`). The first byte picks the server: odd, the one with a password.
///
/// Invariants, the page's two promises:
/// - with a password, nothing but a 401 comes back without `Authorization: Basic` credentials holding it;
/// - `POST /api/sync` is not accepted (202) from a browser page of another origin: an `Origin` header that is not
///   `http://` or `https://` followed by the `Host` header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStatusRequest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = input.first, let servers else { return 0 }
    let protected = first & 1 == 1
    let request = Array(input.dropFirst())
    guard let status = exchange(request, port: protected ? servers.protected.port : servers.open.port) else {
        return 0
    }
    let headers = Headers(request)
    if protected, status != 401, status < 400 {
        invariant(headers.hasCredentials(password: fuzzPassword), "answered \(status) without the password")
    }
    if status == 202, let origin = headers.value("origin") {
        let host = headers.value("host") ?? ""
        invariant(
            origin.lowercased() == "http://" + host.lowercased()
                || origin.lowercased() == "https://" + host.lowercased(),
            "accepted a sync from origin \(origin) for host \(host)")
    }
    return 0
}

private let fuzzPassword = "fuzz-secret"

/// The two servers, started on the first input and kept for the whole run.
private let servers: (open: StatusServer, protected: StatusServer)? = {
    var logger = Logger(label: "fuzz")
    logger.logLevel = .critical
    let snapshot: @Sendable () -> StatusSnapshot = {
        StatusSnapshot(
            state: "idle", summary: "Idle", leds: [], startedAt: 0, contacts: 0, remotes: [], events: [],
            version: "fuzz", build: "fuzz")
    }
    func start(password: String?) -> StatusServer? {
        // Every connection comes from 127.0.0.1, so no limit per client; a 1 s timeout ends those MHD keeps
        // waiting on (an incomplete request) soon.
        let settings = StatusServer.Settings(
            host: "127.0.0.1", port: 0, password: password, maxConnections: 64, maxConnectionsPerClient: nil,
            connectionTimeout: .seconds(1))
        // Pairing in memory, and the settings and setup answered by stand-ins: the forms' bodies are read (and
        // refused without a paired browser) as on the box.
        return try? StatusServer(
            settings: settings, snapshot: snapshot, syncNow: {}, pairings: PairedBrowsers(folder: nil),
            pageSettings: { _ in .refused(status: 409, message: "fuzz") },
            setup: { _ in .view(SetupView(phase: .idle, providers: [])) }, logger: logger)
    }
    guard let open = start(password: nil), let protected = start(password: fuzzPassword) else {
        violated("cannot start the status servers")
    }
    return (open, protected)
}()

/// Sends `request` and returns the status code of the first answer; nil when the server closed without one (MHD
/// refuses some malformed requests that way, and ends those it waits on after its 1 s timeout: an incomplete
/// request, or one with a body still to come). After 0.1 s without an answer the sending side is closed: there
/// is nothing more to come.
private func exchange(_ request: [UInt8], port: UInt16) -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    invariant(fd >= 0, "socket: \(errno)")
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    invariant(connected == 0, "connect: \(errno)")
    var sent = 0
    while sent < request.count {
        let written = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written > 0 else { break }  // the server may close early, e.g. for a body over its limit
        sent += written
    }
    // The status line is all we need: "HTTP/1.1 200 OK".
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    var halfClosed = false
    while answer.count < 12 {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, halfClosed ? 5000 : 100)
        if ready < 0, errno == EINTR { continue }
        if ready == 0 {
            invariant(!halfClosed, "the server neither answered nor closed within 5 s of its 1 s timeout")
            shutdown(fd, Int32(SHUT_WR))
            halfClosed = true
            continue
        }
        let received = recv(fd, &buffer, buffer.count, 0)
        if received < 0, errno == EINTR { continue }
        guard received > 0 else { break }
        answer += buffer[..<received]
    }
    guard answer.count >= 12, answer.starts(with: Array("HTTP/1.".utf8)) else { return nil }
    return Int(String(decoding: answer[9..<12], as: UTF8.self))
}

/// The request's header lines, as a client that sent these bytes meant them, where MHD reads them the same way.
private struct Headers {
    var lines: [(name: String, value: String)] = []

    init(_ request: [UInt8]) {
        let head = request.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropFirst()
        for rawLine in head {
            // MHD reads lines as C strings, so a NUL ends one (a line starting with NUL ends the header section),
            // and a bare CR ends one too.
            let line = String(decoding: rawLine.prefix { $0 != 0 && $0 != UInt8(ascii: "\r") }, as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else {
                if line.isEmpty { break }
                continue
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            lines.append((line[..<colon].lowercased(), value))
        }
    }

    func value(_ name: String) -> String? { lines.first { $0.name == name }?.value }

    /// Whether some `Authorization: Basic` header decodes to `user:password`, the way a client would write it.
    func hasCredentials(password: String) -> Bool {
        lines.contains { line in
            guard line.name == "authorization" else { return false }
            let parts = line.value.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "basic" else { return false }
            let decoded = base64Decoded(parts[1])
            // The user name is anything up to the first colon, not necessarily UTF-8.
            guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return false }
            return decoded[(colon + 1)...].elementsEqual(password.utf8)
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}

/// The bytes of the leading base64 characters of `text`: libmicrohttpd stops decoding at the padding and takes
/// the credentials found up to there, whatever follows.
private func base64Decoded(_ text: Substring) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var bits = 0
    var count = 0
    var bytes: [UInt8] = []
    for byte in text.utf8 {
        guard let index = alphabet.firstIndex(of: byte) else { break }
        bits = (bits << 6 | index) & 0xFFFF
        count += 6
        if count >= 8 {
            count -= 8
            bytes.append(UInt8(truncatingIfNeeded: bits >> count))
        }
    }
    return bytes
}

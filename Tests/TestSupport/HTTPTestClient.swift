import Glibc

/// What the server answered, parsed just enough for the tests.
public struct HTTPTestResponse {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: String

    /// A header's value by its case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

public struct HTTPTestFailure: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// A minimal HTTP/1.1 client to 127.0.0.1 over a blocking socket, for the tests of the status page and of the
/// daemon: one request per connection (`Connection: close`), the answer read to the end. Enough to see exactly
/// what goes over the wire, with no library in between.
public enum HTTPTestClient {
    public static func request(
        port: UInt16, method: String = "GET", path: String, headers: [(String, String)] = [], body: String = "",
        from source: String? = nil
    ) throws -> HTTPTestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
        let answer = try exchange(port: port, bytes: Array((head + "\r\n" + body).utf8), from: source)
        return try parse(answer)
    }

    /// Sends `bytes` as they are, then reads until the server closes the connection. A reset after the answer
    /// counts as the end of it: a server refusing a request may close before reading all of it. `source`, another
    /// loopback address such as 127.0.0.2 (all of 127.0.0.0/8 is this machine's), makes the request come from
    /// another client as the server sees it.
    ///
    /// `complete`, when given, ends the read as soon as it says the answer is whole (see `framedRequest`), for
    /// servers that keep the connection open; `timeout` is how long one send or receive may block, in seconds.
    public static func exchange(
        port: UInt16, bytes: [UInt8], from source: String? = nil, timeout: Int = 10,
        complete: (([UInt8]) -> Bool)? = nil
    ) throws -> [UInt8] {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPTestFailure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                throw HTTPTestFailure(description: "not an IPv4 address: \(source)")
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw HTTPTestFailure(description: "bind to \(source): errno \(errno)") }
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTPTestFailure(description: "connect to port \(port): errno \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if result <= 0 { break }  // The server stopped reading: read what it said.
            sent += result
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                answer += buffer[..<count]
                if let complete, complete(answer) { return answer }
            } else if count == 0 || errno == ECONNRESET {
                return answer
            } else if errno == EAGAIN {
                throw HTTPTestFailure(description: "no whole answer within \(timeout) s: \(answer.count) bytes read")
            } else if errno != EINTR {
                throw HTTPTestFailure(description: "recv: errno \(errno) after \(answer.count) bytes")
            }
        }
    }

    /// Like `request`, but the answer is read as far as its `Content-Length` rather than to the connection's end:
    /// for servers that keep the connection open whatever the request says (chromedriver ignores
    /// `Connection: close`). `timeout` bounds each send and receive, in seconds.
    public static func framedRequest(
        port: UInt16, method: String, path: String, headers: [(String, String)] = [], body: String = "",
        timeout: Int = 10
    ) throws -> HTTPTestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.utf8.count)\r\n" }
        let answer = try exchange(
            port: port, bytes: Array((head + "\r\n" + body).utf8), timeout: timeout, complete: isWhole)
        return try parse(answer)
    }

    /// Whether `answer` holds a response head and as many body bytes as its `Content-Length` says. Without that
    /// header the answer ends only with the connection.
    static func isWhole(_ answer: [UInt8]) -> Bool {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = answer.indices.dropLast(3).first(where: { answer[$0..<$0 + 4].elementsEqual(separator) })
        else { return false }
        let head = String(decoding: answer[..<end], as: UTF8.self)
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].lowercased() == "content-length"
            else { continue }
            guard let length = Int(line[line.index(after: colon)...].drop { $0 == " " }) else { return false }
            return answer.count - (end + 4) >= length
        }
        return false
    }

    public static func parse(_ answer: [UInt8]) throws -> HTTPTestResponse {
        let text = String(decoding: answer, as: UTF8.self)
        guard let end = text.firstRange(of: "\r\n\r\n") else {
            throw HTTPTestFailure(description: "no complete response head in \(answer.count) bytes: \(text)")
        }
        let lines = text[..<end.lowerBound].split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw HTTPTestFailure(description: "bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.append((String(line[..<colon]), String(value)))
        }
        return HTTPTestResponse(status: status, headers: headers, body: String(text[end.upperBound...]))
    }

    /// `Basic base64(user:password)` (RFC 7617).
    public static func basicAuthorization(user: String, password: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let bytes = Array("\(user):\(password)".utf8)
        var encoded: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                encoded.append(
                    index <= chunk.count ? alphabet[Int(value >> (18 - 6 * index) & 0x3F)] : UInt8(ascii: "="))
            }
        }
        return "Basic " + String(decoding: encoded, as: UTF8.self)
    }
}

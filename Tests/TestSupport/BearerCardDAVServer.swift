import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A CardDAV server that, like Google's, admits only requests with a valid OAuth 2.0 bearer token: Radicale behind
/// Debian's nginx on 127.0.0.1, each at a free port, in a fresh temporary folder, stopped by PID.
///
/// nginx asks the `OAuthStandIn` about every request (`auth_request` to its `/auth-check`, which reads the
/// `Authorization: Bearer` header): a valid, unexpired access token with Google's CardDAV scope passes, with the
/// token's user in `X-Remote-User`, to a Radicale that takes its user from that header (`[auth] type =
/// http_x_remote_user`); anything else gets 401 with `WWW-Authenticate: Bearer ...` (RFC 6750 3), or 403 for a
/// token without the scope. The request goes on otherwise untouched (method, body, `Depth`, `If-Match`, ...);
/// the `Authorization` header is not passed to Radicale.
///
/// nginx runs as a plain process from a generated configuration (`nginx -c CONF -p PREFIX -g 'daemon off; ...'`),
/// never as the system service; as root, it is started as `nobody` (setpriv), so that it is not a root process.
public final class BearerCardDAVServer {
    public static let nginx = "/usr/sbin/nginx"
    static let setpriv = "/usr/bin/setpriv"

    /// The authorization server whose tokens nginx admits.
    public let oauth: OAuthStandIn
    /// The Radicale behind nginx, for seeding cards (`seedCards`, or its own `request`s straight to it, without
    /// nginx), reading its storage or its log.
    public let radicale: RadicaleServer
    /// nginx's port.
    public let port: Int
    /// "http://127.0.0.1:PORT/": nginx, where a client starts.
    public let baseURL: String
    /// nginx's error log (and what it printed); its access log is `accessLogPath`.
    public let logPath: String
    public let accessLogPath: String

    private let folder: TemporaryDirectory
    private let prefix: String
    private let configPath: String
    private var process: ChildProcess?

    /// Why the bed cannot run here (nginx, Radicale's virtualenv, Python or curl missing), or nil.
    public static var unavailableReason: String? {
        guard access(nginx, X_OK) == 0 else { return "no nginx (\(nginx)): run Deploy/test.sh, which installs nginx" }
        return TestServerKind.radicale.unavailableReason ?? OAuthStandIn.unavailableReason
    }

    /// Whether the suites that need the bed run here: see `TestRequirement`.
    public static var runs: Bool { TestRequirement.runs(missing: unavailableReason) }

    /// The note a skipped suite shows.
    public static var skipNote: String {
        "nginx, Radicale or Python is missing (CONTACTBOX_SKIP_MISSING=1): \(unavailableReason ?? "")"
    }

    /// Starts Radicale (with the address book "contacts" of `oauth.user`) and nginx in front of it, and waits until
    /// both answer (20 s each at most). `oauth`: the authorization server to trust; a fresh `OAuthStandIn` if nil.
    public init(oauth: OAuthStandIn? = nil) throws {
        if let reason = Self.unavailableReason { throw TestServerFailure(reason) }
        self.oauth = try oauth ?? OAuthStandIn()
        radicale = try RadicaleServer(
            users: [self.oauth.user: "unused"], logRequests: true, authentication: .reverseProxyHeader)
        try radicale.createAddressBook(user: self.oauth.user)
        folder = try TemporaryDirectory(prefix: "contactbox-nginx")
        prefix = try folder.folder("nginx")
        for name in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] { _ = try folder.folder("nginx/" + name) }
        configPath = prefix + "/nginx.conf"
        logPath = prefix + "/error.log"
        accessLogPath = prefix + "/access.log"
        port = Int(try freeLoopbackPort())
        baseURL = "http://127.0.0.1:\(port)/"
        try configuration().write(toFile: configPath, atomically: false, encoding: .utf8)
        if getuid() == 0 {
            // nobody must reach its folder: mkdtemp's is root's, 0700.
            chmod(folder.path, 0o755)
            guard let account = getpwnam("nobody") else { throw TestServerFailure("no user nobody") }
            for path in [prefix, configPath]
                + ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map({ prefix + "/" + $0 })
            {
                guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                    throw TestServerFailure("chown \(path) to nobody failed: errno \(errno)")
                }
            }
        }
        try start()
    }

    deinit {
        stop()
    }

    /// nginx's master process id while it runs.
    public var processIdentifier: Int32? { process.map(\.pid) }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// "http://127.0.0.1:PORT/alice/contacts/" through nginx (the collection of `oauth.user` by default).
    public func addressBookURL(_ name: String = "contacts", user: String? = nil) -> String {
        baseURL + (user ?? oauth.user) + "/" + name + "/"
    }

    /// Starts nginx (again: on the same port). Radicale and the stand-in are not touched.
    public func start() throws {
        guard !isRunning else { return }
        var arguments = [
            "-e", logPath, "-p", prefix + "/", "-c", configPath,
            "-g", "daemon off; pid \(prefix)/nginx.pid; error_log \(logPath) info;",
        ]
        var path = Self.nginx
        if getuid() == 0 {
            arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", Self.nginx] + arguments
            path = Self.setpriv
        }
        // A group of its own: a worker that outlives a killed master goes with it.
        process = try ChildProcess(
            path: path, arguments: arguments, logPath: folder.file("nginx-start.log"), newProcessGroup: true
        ).serving("nginx (port \(port))", log: logTail) {
            loopbackAccepts(port: port)
        }
    }

    /// Stops nginx by PID (SIGTERM to its process group, then SIGKILL after 5 s). Radicale and the stand-in stop
    /// when the object goes away.
    public func stop() {
        process?.terminate()
        process = nil
    }

    /// One request through nginx with curl: `bearer` as `Authorization: Bearer ...`, or no credentials at all.
    public func request(
        _ method: String, _ url: String, bearer: String?, body: String? = nil, contentType: String? = nil,
        headers: [String] = []
    ) throws -> CurlResponse {
        try curlRequest(
            method, url, body: body, contentType: contentType,
            headers: headers + (bearer.map { ["Authorization: Bearer " + $0] } ?? []), user: nil, includeHeaders: true)
    }

    public func logTail() -> String {
        let start = (try? String(contentsOfFile: folder.file("nginx-start.log"), encoding: .utf8)) ?? ""
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String((start + text).suffix(2000))
    }

    private func configuration() -> String {
        let oauthPort = oauth.port
        let radicalePort = radicale.port
        return """
            # Generated by Tests/TestSupport/BearerCardDAVServer.swift: Radicale behind OAuth 2.0 bearer tokens.
            worker_processes 1;
            events { worker_connections 64; }
            http {
                access_log \(accessLogPath);
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                # Address books of thousands of cards in one PUT or REPORT: no limit here.
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port);
                    server_name 127.0.0.1 localhost;

                    # Every request is asked of the stand-in first: 200 passes (its X-User is the user), 401 and 403
                    # go to the client with the stand-in's WWW-Authenticate.
                    location = /_oauth_check {
                        internal;
                        proxy_pass http://127.0.0.1:\(oauthPort)/auth-check;
                        proxy_pass_request_body off;
                        proxy_set_header Content-Length "";
                        proxy_set_header X-Original-Method $request_method;
                        proxy_set_header X-Original-URI $request_uri;
                    }

                    location / {
                        auth_request /_oauth_check;
                        auth_request_set $oauth_user $upstream_http_x_user;
                        proxy_pass http://127.0.0.1:\(radicalePort);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Remote-User $oauth_user;
                        proxy_set_header Authorization "";
                        proxy_buffering off;
                        proxy_request_buffering off;
                        proxy_read_timeout 300s;
                    }
                }
            }

            """
    }
}

@available(*, unavailable) extension BearerCardDAVServer: Sendable {}

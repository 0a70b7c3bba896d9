import CMicroHTTPD
import Glibc
import Logging
import Synchronization
import SystemSupport

/// The appliance's status page (`/`), its JSON (`/api/status`), its Prometheus metrics (`/metrics`) and the
/// "Sync now" action (`POST /api/sync`), pairing a browser with the box (`/api/pairing`: the box's button decides)
/// and the undo's steps (`POST /api/undo/preview`, `/api/undo`, `/api/undo/cancel`) and a damaged store's recover
/// (`POST /api/recover`): from a paired browser only; none changes a contact, the box's button confirms. Served by
/// libmicrohttpd.
///
/// Listening starts in `init` and ends with `stop()` or when the server is released. MHD runs one internal thread
/// with epoll (where there is epoll): a status page sees a few requests a second, and one thread answering each from
/// a snapshot in microseconds serves thousands, where a thread per connection would cost a stack per visitor.
///
/// `snapshot`, `syncNow` and `undo` run on that thread, one request at a time: keep them quick and non-blocking (take a
/// lock, copy, signal), and never call `stop()` from them, as stopping waits for that thread to finish.
public final class StatusServer: Sendable {
    /// The bound port: `settings.port`, or the one the system picked when that was 0.
    public let port: UInt16
    /// "127.0.0.1:8080", as logged.
    public let address: String

    /// Whether this server answers over HTTPS.
    public let isSecure: Bool
    /// The address it listens on, as configured (`0.0.0.0`, `::`, `127.0.0.1` ...).
    public let host: String

    /// Kept alive here for MHD's callbacks, which reach it through an unretained pointer.
    private let handler: RequestHandler
    /// The names the page answers to; the box's name among them changes while it runs (``setBoxName(_:)``).
    private let allowedHosts: AllowedHosts
    /// The MHD daemon until stopped. MHD's handle is safe to stop from any thread; the lock makes `stop()` run once.
    private let daemon: Mutex<DaemonHandle?>
    /// Closes connections past their request's deadline (``RequestDeadlines``).
    private let watch: DeadlineWatch
    /// The TLS key and certificate as MHD was given them, kept until it has stopped.
    private let tlsMemory: TLSMemory?

    /// Starts listening on `settings.host` and `settings.port`.
    public convenience init(
        settings: Settings, snapshot: @escaping @Sendable () -> StatusSnapshot,
        syncNow: @escaping @Sendable () -> Void, undo: @escaping @Sendable (UndoRequest) -> Void = { _ in },
        pairings: PairedBrowsers, pair: @escaping @Sendable (PairingRequest) -> Void = { _ in },
        pageSettings: (@Sendable (SettingsRequest) -> SettingsAnswer)? = nil,
        setup: (@Sendable (SetupRequest) -> SetupAnswer)? = nil, contacts: (any ContactsBackend)? = nil,
        tokens: APITokens? = nil, armRestore: (@Sendable (PageRestore) -> Bool)? = nil, logger: Logger
    ) throws(StatusServerError) {
        try self.init(
            settings: settings, clock: monotonicMillis, systemHosts: AllowedHosts.readSystemHosts,
            snapshot: snapshot, syncNow: syncNow, undo: undo, pairings: pairings, pair: pair,
            pageSettings: pageSettings, setup: setup, contacts: contacts, tokens: tokens, armRestore: armRestore,
            logger: logger)
    }

    /// `clock` (monotonic milliseconds) times the password lockouts and the re-reading of the interfaces;
    /// `systemHosts` gives the host names and interface addresses. Tests replace both.
    init(
        settings: Settings, clock: @escaping @Sendable () -> Int64,
        systemHosts: @escaping @Sendable () -> Set<String>, snapshot: @escaping @Sendable () -> StatusSnapshot,
        syncNow: @escaping @Sendable () -> Void, undo: @escaping @Sendable (UndoRequest) -> Void = { _ in },
        pairings: PairedBrowsers, pair: @escaping @Sendable (PairingRequest) -> Void = { _ in },
        pageSettings: (@Sendable (SettingsRequest) -> SettingsAnswer)? = nil,
        setup: (@Sendable (SetupRequest) -> SetupAnswer)? = nil, contacts: (any ContactsBackend)? = nil,
        tokens: APITokens? = nil, armRestore: (@Sendable (PageRestore) -> Bool)? = nil, logger: Logger
    ) throws(StatusServerError) {
        try settings.validate()
        let allowedHosts = AllowedHosts(
            configured: [settings.host] + settings.allowedHosts, systemHosts: systemHosts, clock: clock)
        let handler = RequestHandler(
            password: settings.password, allowedHosts: allowedHosts, clock: clock, snapshot: snapshot,
            syncNow: syncNow, undo: undo, pairings: pairings, pair: pair, isSecure: settings.tls != nil,
            settings: pageSettings, setup: setup, contacts: contacts, tokens: tokens, armRestore: armRestore,
            logger: logger)
        let longPolls = handler.longPolls
        guard let watch = DeadlineWatch(handler.deadlines, tick: { longPolls.resumeAll() }) else {
            throw StatusServerError(
                code: .startFailed,
                message: "Cannot show the status page on \(displayAddress(settings.host, settings.port)): no thread "
                    + "or eventfd for its request deadlines (out of memory, or of threads or file descriptors?)")
        }
        let socket = try ListenSocket.open(host: settings.host, port: settings.port)
        let tlsMemory = settings.tls.map(TLSMemory.init)
        // Unretained: `self` keeps the handler alive, and `stop()` (at the latest in deinit) waits for MHD's thread,
        // so MHD never uses the pointer after the handler is gone.
        let context = Unmanaged.passUnretained(handler).toOpaque()
        // MHD_USE_AUTO: "If MHD_USE_INTERNAL_POLLING_THREAD is specified then epoll, poll() or select() will be used
        // (listed in decreasing preference order, first function available on system will be used)." No
        // MHD_USE_ERROR_LOG: MHD would write to stderr behind the logger's back.
        let started = cmhd_start_daemon(
            MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue, socket.descriptor,
            { context, connection, url, method, version, uploadData, uploadSize, requestState in
                guard let context, let connection, let url, let method, let version, let uploadSize, let requestState
                else { return .NO }
                return Unmanaged<RequestHandler>.fromOpaque(context).takeUnretainedValue().handle(
                    connection, path: url, method: method, version: version, uploadData: uploadData,
                    uploadSize: uploadSize, requestState: requestState)
            },
            context,
            { context, connection, _, code in
                guard let context, let connection else { return }
                let deadlines = Unmanaged<RequestHandler>.fromOpaque(context).takeUnretainedValue().deadlines
                if cmhd_is_connection_start(code) != 0 {
                    deadlines.opened(connection, descriptor: cmhd_connection_fd(connection))
                } else {
                    deadlines.closed(connection)
                }
            },
            { context, connection, _, _ in
                guard let context, let connection else { return }
                Unmanaged<RequestHandler>.fromOpaque(context).takeUnretainedValue().requestEnded(connection)
            },
            UInt32(settings.maxConnections), UInt32(settings.maxConnectionsPerClient ?? 0),
            UInt32(clamping: settings.connectionTimeout.components.seconds), Settings.connectionMemoryBytes,
            tlsMemory?.key, tlsMemory?.certificate)
        guard let started else {
            watch.stop()
            socket.closeAfterFailedStart()
            throw StatusServerError(
                code: .startFailed,
                message: "Cannot show the status page on \(socket.address): libmicrohttpd could not start its "
                    + (tlsMemory == nil
                        ? "thread or event loop (out of memory, or of threads or file descriptors?)"
                        : "HTTPS (a certificate and key that do not belong together, or that GnuTLS cannot read?)"))
        }
        self.tlsMemory = tlsMemory
        self.handler = handler
        self.allowedHosts = allowedHosts
        self.isSecure = settings.tls != nil
        self.host = settings.host
        self.watch = watch
        self.daemon = Mutex(DaemonHandle(pointer: started))
        self.port = socket.port
        self.address = socket.address
        logger.info("Status page listening", metadata: ["status.address": "\(socket.address)"])
    }

    /// Stops listening, closes every connection and waits for MHD's thread to finish; the port is free when this
    /// returns. Calling it again does nothing.
    public func stop() {
        guard let daemon = daemon.withLock({ $0.take() }) else { return }
        // The long polls answer before MHD stops: it must not stop with a connection suspended, and their clients
        // get their answer (no change) rather than a closed connection. At most a second for it.
        handler.longPolls.stop()
        var waited = 0
        while handler.longPolls.count > 0, waited < 100 {
            usleep(10_000)
            waited += 1
        }
        watch.stop()
        // MHD owns the listen socket we gave it and closes it here; only a socket taken back with
        // MHD_quiesce_daemon would be ours to close:
        // > MHD_quiesce_daemon: Stop accepting connections from the listening socket. [...] Note that the caller is
        // > responsible for closing the returned socket
        MHD_stop_daemon(daemon.pointer)
    }

    /// Asks for `password` from the next request on (nil: the page is open to the home network), as the household
    /// set it on the page; checked as the settings' password is (``Settings``), and refused with the same error.
    public func setPassword(_ password: String?) throws(StatusServerError) {
        var settings = Settings()
        settings.password = password
        try settings.validate()
        handler.setPassword(password)
    }

    /// The box's name on the network (`[box] name`; nil: none): the page answers `Host: <name>.local` (and
    /// `<name>`) from the next request on, as the daemon publishes that name over mDNS. Safe from any thread; the
    /// daemon calls it at the start and after each reload, as the name can be changed from the page.
    public func setBoxName(_ name: String?) {
        allowedHosts.setBoxName(name)
    }

    /// How many long polls of the changes feed wait, for tests to wait on.
    var waitingLongPolls: Int { handler.longPolls.count }

    /// How many connections MHD has told us of and not yet closed, for tests to wait on.
    var watchedConnections: Int { handler.deadlines.count }

    deinit {
        stop()
    }
}

/// The PEM texts MHD reads its TLS credentials from, in C memory that stays put until the server is gone; the key
/// is overwritten before it is freed.
private final class TLSMemory: @unchecked Sendable {
    let key: UnsafeMutablePointer<CChar>?
    let certificate: UnsafeMutablePointer<CChar>?

    init(_ tls: StatusServer.Settings.TLS) {
        key = strdup(tls.key)
        certificate = strdup(tls.certificate)
    }

    deinit {
        if let key { memset(key, 0, strlen(key)) }
        free(key)
        free(certificate)
    }
}

/// The `struct MHD_Daemon *`. Sendable so the server's lock can hold it: `stop()` takes it out exactly once, and
/// MHD_stop_daemon may be called from any thread but MHD's own.
private struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

import Logging
import Synchronization
import SystemSupport

/// The browsers allowed to change anything through the status page: each paired by a press of the box's button (or
/// a one-time code from `contactbox pair`), known by the SHA-256 of the secret in its cookie, and forgotten 30 days
/// after it was last used, when revoked on the page, or when the button is held 10 s (`contactbox pair
/// --forget-all` does the same). Reading the page needs none of this.
///
/// The status server's thread asks (`begin`, `standing`, `redeem`, `revoke`); the main loop decides (`decide` after
/// the button, `forgetAll`). Kept in the state folder (`pairings`, mode 0600), re-read whenever another process
/// changed it; without a path (tests), in memory only.
public final class PairedBrowsers: Sendable {
    public struct Browser: Sendable, Equatable {
        /// 8 hex digits: how the page and the journal name it (never its secret).
        public var id: String
        var digest: [UInt8]
        /// Unix seconds.
        public var pairedAt: Int64
        public var lastUsed: Int64
        /// Where it was paired from.
        public var address: String
    }

    /// What the box knows of a browser's secret.
    public enum Standing: Sendable, Equatable {
        case paired(Browser)
        /// Its request waits for the button.
        case waiting
        /// Its request ended without a press (time ran out, or another request or an undo had the button).
        case refused
        case unknown
    }

    /// A pairing not used for this long is forgotten.
    public static let idleLimit = Duration.seconds(30 * 86_400)
    /// Last use is written at most this often, to spare the SD card: the 30 days are counted to the day.
    static let lastUseResolution: Int64 = 86_400
    static let browserLimit = 32
    static let pendingLimit = 8
    /// A request the main loop never answered is dropped after this long (it answers within two minutes).
    static let pendingLimitMillis: Int64 = 10 * 60 * 1000

    struct Pending {
        var id: String
        var digest: [UInt8]
        var address: String
        var since: Int64
        var refused = false
    }

    struct State {
        var browsers: [Browser] = []
        var pending: [Pending] = []
        /// What the file looked like when last read or written: another process's change is noticed by it.
        var stamp: FileStamp?
        var failedCodes = 0
    }

    let file: PairingFiles?
    let logger: Logger?
    let state = Mutex(State())
    /// Unix seconds.
    let wallClock: @Sendable () -> Int64
    /// Monotonic milliseconds.
    let clock: @Sendable () -> Int64

    /// `folder` is the state folder (`/var/lib/contactbox`); nil keeps the pairings in memory. `logger` hears of a
    /// pairings file that cannot be written.
    public init(
        folder: String?, logger: Logger? = nil, wallClock: @escaping @Sendable () -> Int64 = wallClockSeconds,
        clock: @escaping @Sendable () -> Int64 = monotonicMillis
    ) {
        file = folder.map(PairingFiles.init(folder:))
        self.logger = logger
        self.wallClock = wallClock
        self.clock = clock
    }

    // MARK: The server's thread

    /// A new request to be paired from `address`: the secret to put in the browser's cookie, and the request the
    /// main loop hears of. It replaces an earlier request from the same address (a second tap of *Pair*); a
    /// request that ended unpaired makes way when the table is full. Returns nil when too many still wait.
    public func begin(address: String) -> (secret: PairingSecret, request: PairingRequest)? {
        let secret = PairingSecret.random()
        let now = clock()
        return state.withLock { state in
            state.pending.removeAll { now - $0.since > Self.pendingLimitMillis || $0.address == address }
            if state.pending.count >= Self.pendingLimit, let refused = state.pending.firstIndex(where: \.refused) {
                state.pending.remove(at: refused)
            }
            guard state.pending.count < Self.pendingLimit else { return nil }
            let id = Self.newID(taken: state.browsers.map(\.id) + state.pending.map(\.id))
            state.pending.append(Pending(id: id, digest: secret.digest, address: address, since: now))
            return (secret, PairingRequest(id: id, address: address))
        }
    }

    /// What the box knows of `secret`; a paired browser's last use is now.
    public func standing(_ secret: PairingSecret) -> Standing {
        let digest = secret.digest
        let now = wallClock()
        return state.withLock { state in
            reloadIfChanged(&state, now: now)
            if let index = state.browsers.firstIndex(where: { PairingSecret.same($0.digest, digest) }) {
                if now - state.browsers[index].lastUsed >= Self.lastUseResolution {
                    state.browsers[index].lastUsed = now
                    save(&state)
                }
                return .paired(state.browsers[index])
            }
            guard let pending = state.pending.first(where: { PairingSecret.same($0.digest, digest) }) else {
                return .unknown
            }
            return pending.refused ? .refused : .waiting
        }
    }

    /// The paired browsers, most recently used first.
    public func list() -> [Browser] {
        let now = wallClock()
        return state.withLock { state in
            reloadIfChanged(&state, now: now)
            return state.browsers.sorted { ($0.lastUsed, $0.id) > ($1.lastUsed, $1.id) }
        }
    }

    /// Forgets one browser (revoked on the page). Returns whether it was paired.
    @discardableResult
    public func revoke(id: String) -> Bool {
        let now = wallClock()
        return state.withLock { state in
            reloadIfChanged(&state, now: now)
            guard let index = state.browsers.firstIndex(where: { $0.id == id }) else { return false }
            state.browsers.remove(at: index)
            save(&state)
            return true
        }
    }

    // MARK: The main loop

    /// The button decided on a request: paired, or not.
    public func decide(id: String, approved: Bool) {
        let now = wallClock()
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return }
            guard approved else {
                state.pending[index].refused = true
                return
            }
            let pending = state.pending.remove(at: index)
            reloadIfChanged(&state, now: now)
            add(Browser(id: id, digest: pending.digest, pairedAt: now, lastUsed: now, address: pending.address), &state)
        }
    }

    /// Every browser forgotten (the button held 10 s).
    public func forgetAll() {
        state.withLock { state in
            state.browsers.removeAll()
            state.pending.removeAll()
            save(&state)
        }
    }

    // MARK: Shared

    func add(_ browser: Browser, _ state: inout State) {
        state.browsers.append(browser)
        if state.browsers.count > Self.browserLimit {
            // The least recently used makes way.
            let oldest = state.browsers.indices.min { state.browsers[$0].lastUsed < state.browsers[$1].lastUsed }
            if let oldest { state.browsers.remove(at: oldest) }
        }
        save(&state)
    }

    func reloadIfChanged(_ state: inout State, now: Int64) {
        let limit = Self.idleLimit.wholeMilliseconds / 1000
        if let file {
            let stamp = FileStamp(path: file.pairings)
            if stamp != state.stamp {
                // Changed, or removed, behind the box's back (`contactbox pair --forget-all`): read it again.
                state.browsers = stamp == nil ? [] : file.readBrowsers()
                state.stamp = stamp
            }
        }
        let before = state.browsers.count
        state.browsers.removeAll { now - $0.lastUsed >= limit }
        if state.browsers.count != before { save(&state) }
    }

    /// A failure keeps the pairings in memory until the next start, and says so.
    func save(_ state: inout State) {
        guard let file else { return }
        if let failure = file.write(state.browsers) {
            logger?.error("The paired browsers could not be saved", metadata: ["pairing.error": "\(failure.reason)"])
        }
        state.stamp = FileStamp(path: file.pairings)
    }

    static func newID(taken: [String]) -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = PairingSecret.hex((0..<4).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            if !taken.contains(id) { return id }
        }
    }
}

/// A browser's request to be paired, as the main loop hears of it: the server's name for it and where it came from.
public struct PairingRequest: Sendable, Equatable {
    public var id: String
    public var address: String

    public init(id: String, address: String) {
        self.id = id
        self.address = address
    }
}

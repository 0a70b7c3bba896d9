import StatusServer
import Synchronization

/// What the status page asks of the daemon.
public enum PageRequest: Sendable, Equatable {
    /// "Sync now".
    case syncNow
    case undo(UndoRequest)
    /// A browser asks to be paired; the status server holds its secret until the button decides.
    case pair(PairingRequest)
    /// The page saved the settings file: read the configuration again, and have the store follow `changes`.
    case settingsSaved([RemoteChange])
    /// A contact's page asks to restore a version, confirmed by a long press of the button.
    case restore(PageRestore)
}

/// The status page's requests on their way to the main loop, which alone decides on them (the server's thread only
/// posts). Bounded: a page cannot make the loop's queue grow, the oldest request makes way.
public final class PageRequests: Sendable {
    static let limit = 8

    private let waiting = Mutex<[PageRequest]>([])
    private let mainLoop: WakeUp

    public init(mainLoop: WakeUp) {
        self.mainLoop = mainLoop
    }

    /// From the status server's thread: queue it and wake the main loop.
    public func post(_ request: PageRequest) {
        waiting.withLock { waiting in
            if waiting.count >= Self.limit { waiting.removeFirst() }
            waiting.append(request)
        }
        mainLoop.signal()
    }

    /// What arrived since the last call, oldest first.
    public func take() -> [PageRequest] {
        waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
    }
}

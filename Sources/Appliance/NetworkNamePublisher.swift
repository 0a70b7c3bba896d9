import Glibc
import Logging
import Synchronization
import SystemSupport

/// The box's name on the network (`[box] name = "kitchen"`): `kitchen.local` resolves to the box's addresses and
/// network views list the status page as "ContactBox kitchen", through `avahi-publish` processes
/// (``NetworkNamePlan`` says which and why) that a thread of its own keeps running (``NetworkNameSupervisor``).
///
/// A thread, not the main loop: it sleeps in poll(2) on its children's pidfds and standard errors, and on its
/// restarts' timer, and stopping a child waits for it to withdraw its records; the main loop only says what
/// changed (``publish(name:pagePort:)``, ``networkChanged()``) and never waits. No name, no thread: a box
/// without `[box] name` starts nothing, and the static announcement (`/etc/avahi/services/contactbox.service`)
/// and the host name are all there is.
public final class NetworkNamePublisher: Sendable {
    private struct Wish: Sendable {
        var name: String?
        var pagePort: UInt16?
        /// The addresses must be read again (at the start, and when the network changed).
        var addressesStale = true
        /// A reload: try the program again if it was missing.
        var retry = false
        var stopping = false
    }

    private let wish = Mutex(Wish())
    private let thread = Mutex<WorkerThread?>(nil)
    private let wake: WakeUp?
    private let program: String
    private let spawner: any ChildSpawner & Sendable
    private let readAddresses: @Sendable () -> NetworkNamePlan.Addresses
    private let logger: Logger

    public convenience init(logger: Logger) {
        self.init(
            program: "avahi-publish", spawner: PosixSpawner(), readAddresses: NetworkNamePlan.read, logger: logger)
    }

    /// `program` and `readAddresses` are replaced by tests.
    init(
        program: String, spawner: any ChildSpawner & Sendable,
        readAddresses: @escaping @Sendable () -> NetworkNamePlan.Addresses, logger: Logger
    ) {
        self.program = program
        self.spawner = spawner
        self.readAddresses = readAddresses
        self.logger = logger
        wake = try? WakeUp()
    }

    /// Publishes `name` (nil: nothing), with the status page on `pagePort` (nil: the page is not reachable from
    /// the network); at the start and after every reload. The same name again keeps the processes as they are.
    public func publish(name: String?, pagePort: UInt16?) {
        let stopped = wish.withLock { wish in
            wish.name = name
            wish.pagePort = pagePort
            wish.retry = true
            return wish.stopping
        }
        guard !stopped else { return }
        if name != nil { startThread() }
        wake?.signal()
    }

    /// Links, addresses or routes changed: the addresses are read again, and the address records follow them.
    public func networkChanged() {
        wish.withLock { $0.addressesStale = true }
        wake?.signal()
    }

    /// Withdraws everything (SIGTERM to every child, reaped) and ends the thread, within `limit`; returns whether
    /// it did. Nothing is published afterwards.
    @discardableResult
    public func stop(waitingAtMost limit: Duration) -> Bool {
        wish.withLock { $0.stopping = true }
        wake?.signal()
        guard let thread = thread.withLock({ $0.take() }) else { return true }
        return thread.join(waitingAtMost: limit)
    }

    private func startThread() {
        thread.withLock { thread in
            guard thread == nil else { return }
            guard let wake else {
                logger.error("The box's name is not published on the network: no eventfd for its thread")
                return
            }
            do {
                thread = try WorkerThread { [self] in run(wake: wake) }
            } catch {
                logger.error(
                    "The box's name is not published on the network", metadata: ["name.error": "\(error)"])
            }
        }
    }

    /// The thread: what is wanted, from the wish and the addresses, carried out by the supervisor; then sleep until
    /// a child ends or speaks, a restart is due, or the main loop says something changed.
    private func run(wake: WakeUp) {
        let supervisor = NetworkNameSupervisor(program: program, spawner: spawner, logger: logger)
        var addresses = NetworkNamePlan.Addresses()
        while true {
            let wish = wish.withLock { wish in
                defer { (wish.addressesStale, wish.retry) = (false, false) }
                return wish
            }
            if wish.stopping {
                supervisor.stopAll(before: monotonicMillis() + NetworkNameSupervisor.stopGrace.wholeMilliseconds)
                return
            }
            if wish.addressesStale {
                let read = readAddresses()
                if read != addresses {
                    logger.info(
                        "The box's addresses",
                        metadata: [
                            "name.ipv4": "\(read.ipv4 ?? "none")", "name.ipv6": "\(read.ipv6 ?? "none")",
                            "name.host": "\(read.hostName ?? "none")",
                        ])
                }
                addresses = read
            }
            if wish.retry { supervisor.retry() }
            supervisor.want(
                NetworkNamePlan.commands(name: wish.name, pagePort: wish.pagePort, addresses: addresses))
            let now = monotonicMillis()
            let next = supervisor.step(at: now)
            var entries = ([wake.descriptor] + supervisor.descriptors)
                .map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // At least once a minute, as the main loop does, whatever is due: no wait without an end.
            let wakeAt = min(next ?? .max, now + Daemon.longestSleep.wholeMilliseconds)
            let timeout = Int32(clamping: max(0, wakeAt - now))
            _ = poll(&entries, nfds_t(entries.count), timeout)
            wake.drain()
        }
    }
}

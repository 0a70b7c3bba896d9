import Glibc
import Logging
import Synchronization
import SystemSupport
import TestSupport
import Testing

@testable import Appliance

@Suite("The box's name over mDNS: what is published")
struct NetworkNamePlanTests {
    typealias Command = NetworkNamePlan.Command
    let addresses = NetworkNamePlan.Addresses(ipv4: "192.168.1.20", ipv6: "fd00::20", hostName: "contactbox")

    @Test("A name: one avahi-publish per address (no reverse record) and one for the page, on the name")
    func commandsForAName() {
        #expect(
            NetworkNamePlan.commands(name: "kitchen", pagePort: 8080, addresses: addresses) == [
                Command(arguments: ["-f", "-R", "-a", "kitchen.local", "192.168.1.20"]),
                Command(arguments: ["-f", "-R", "-a", "kitchen.local", "fd00::20"]),
                Command(arguments: [
                    "-f", "-s", "-H", "kitchen.local", "ContactBox kitchen", "_http._tcp", "8080", "path=/",
                ]),
            ])
    }

    @Test("No name, or the host's own (Avahi publishes that one already): nothing")
    func nothingToPublish() {
        #expect(NetworkNamePlan.commands(name: nil, pagePort: 8080, addresses: addresses).isEmpty)
        #expect(NetworkNamePlan.commands(name: "", pagePort: 8080, addresses: addresses).isEmpty)
        #expect(NetworkNamePlan.commands(name: "ContactBox", pagePort: 8080, addresses: addresses).isEmpty)
    }

    @Test("No page on the network: the name alone; no address: the page alone, on the name")
    func partial() {
        #expect(
            NetworkNamePlan.commands(name: "kitchen", pagePort: nil, addresses: .init(ipv4: "10.0.2.15")) == [
                Command(arguments: ["-f", "-R", "-a", "kitchen.local", "10.0.2.15"])
            ])
        #expect(
            NetworkNamePlan.commands(name: "kitchen", pagePort: 9000, addresses: .init()).map(\.arguments)
                == [["-f", "-s", "-H", "kitchen.local", "ContactBox kitchen", "_http._tcp", "9000", "path=/"]])
    }

    @Test("IPv4: the default route's interface first; loopback never, link-local only when there is nothing else")
    func chooseIPv4() {
        let interfaces = [
            (interface: "docker0", address: "172.17.0.1"), (interface: "eth0", address: "169.254.3.4"),
            (interface: "wlan0", address: "192.168.1.20"),
        ]
        #expect(NetworkNamePlan.chooseIPv4(interfaces: interfaces, defaultRoute: "wlan0") == "192.168.1.20")
        #expect(NetworkNamePlan.chooseIPv4(interfaces: interfaces, defaultRoute: nil) == "172.17.0.1")
        #expect(NetworkNamePlan.chooseIPv4(interfaces: [("eth0", "169.254.3.4")], defaultRoute: nil) == "169.254.3.4")
        #expect(NetworkNamePlan.chooseIPv4(interfaces: [("lo", "127.0.0.1")], defaultRoute: nil) == nil)
        let routes = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask
            eth0\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF
            eth0\t00000000\t0202000A\t0003\t0\t0\t0\t00000000
            """
        #expect(NetworkNamePlan.defaultRouteInterface(routes) == "eth0")
        #expect(NetworkNamePlan.defaultRouteInterface("Iface\tDestination\n") == nil)
    }

    @Test("IPv6: a stable address of global scope; temporary, deprecated, tentative and link-local ones are not")
    func chooseIPv6() {
        let text = """
            00000000000000000000000000000001 01 80 10 80       lo
            fe80000000000000505400fffe123456 02 40 20 80     eth0
            20010db8000000001234567890abcdef 02 40 00 01     eth0
            fd000000000000000000000000000020 02 40 00 40     eth0
            20010db800000000000000000000beef 02 40 00 20     eth0
            fd00000000000000505400fffe123456 02 40 00 80     eth0
            """
        #expect(NetworkNamePlan.chooseIPv6(ifInet6: text) == "fd00::5054:ff:fe12:3456")
        #expect(NetworkNamePlan.chooseIPv6(ifInet6: nil) == nil)
        #expect(NetworkNamePlan.chooseIPv6(ifInet6: "00000000000000000000000000000001 01 80 10 80 lo") == nil)
    }

    @Test("IPv6 text as inet_ntop writes it")
    func compressed() {
        func text(_ hex: String) -> String {
            let characters = Array(hex)
            return NetworkNamePlan.compressedIPv6(
                stride(from: 0, to: 32, by: 4).map { String(characters[$0..<$0 + 4]) })
        }
        #expect(text("20010db8000000000000000000000001") == "2001:db8::1")
        #expect(text("20010db8000100000000000100000001") == "2001:db8:1::1:0:1")
        #expect(text("20010db8000100010001000100010001") == "2001:db8:1:1:1:1:1:1")
        #expect(text("20010db8000000010000000000000000") == "2001:db8:0:1::")
        #expect(text("00000000000000000000000000000000") == "::")
    }

    @Test("A process that ends soon after its start waits 2 s, then twice as long each time, at most 5 minutes")
    func backoff() {
        var failures = 0
        var waits: [Int64] = []
        for _ in 0..<10 {
            let next = NetworkNamePlan.restart(ran: .seconds(1), earlierFailures: failures)
            failures = next.failures
            waits.append(next.wait.wholeMilliseconds / 1000)
        }
        #expect(waits == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        // One that had been running for a minute or more was working: its wait starts again.
        #expect(NetworkNamePlan.restart(ran: .seconds(90), earlierFailures: 8) == (.seconds(2), 1))
    }
}

/// A child that exists only in memory: a fake, for the supervisor's decisions.
final class FakeChild: SpawnedChild {
    let pid: pid_t
    let arguments: [String]
    var status: Int32?
    var output: [String] = []
    var askedToStop = false

    init(pid: pid_t, arguments: [String]) {
        self.pid = pid
        self.arguments = arguments
    }

    var descriptors: [Int32] { [100 + pid, 200 + pid] }

    func hasEnded() -> Int32? { status }

    func takeOutput() -> [String] {
        defer { output = [] }
        return output
    }

    func askToStop() {
        askedToStop = true
        if status == nil { status = SIGTERM }
    }

    func reap(before deadline: Int64) -> Int32 { status ?? 0 }
}

/// A spawner that starts nothing: it records what it was asked for, as `FakeChild`ren. A fake, for unit tests.
final class FakeSpawner: ChildSpawner, @unchecked Sendable {
    var started: [FakeChild] = []
    var missing = false
    var nextPid: pid_t = 1000

    func spawn(_ program: String, _ arguments: [String]) -> Result<any SpawnedChild, SpawnFailure> {
        if missing { return .failure(.missing("\(program): No such file or directory")) }
        nextPid += 1
        let child = FakeChild(pid: nextPid, arguments: arguments)
        started.append(child)
        return .success(child)
    }

    /// The children that still run.
    var running: [FakeChild] { started.filter { $0.status == nil } }
}

/// Log lines as "level message", for the tests to read.
final class LineRecorder: @unchecked Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: LineRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}

@Suite("The box's name over mDNS: the processes kept running (a fake spawner)")
struct NetworkNameSupervisorTests {
    let spawner = FakeSpawner()
    let log = LineRecorder()
    let kitchen = NetworkNamePlan.commands(
        name: "kitchen", pagePort: 8080, addresses: .init(ipv4: "192.168.1.20", hostName: "contactbox"))

    func supervisor() -> NetworkNameSupervisor {
        NetworkNameSupervisor(spawner: spawner, logger: log.logger)
    }

    @Test("A name starts its processes once; a new name stops the old ones and starts its own")
    func startAndRename() {
        let names = supervisor()
        names.want(kitchen)
        #expect(names.step(at: 0) == nil)
        #expect(spawner.started.map(\.arguments) == kitchen.map(\.arguments))
        #expect(names.step(at: 1000) == nil)
        #expect(spawner.started.count == 2)
        #expect(Set(names.descriptors) == Set<Int32>([1101, 1201, 1102, 1202]))

        let hall = NetworkNamePlan.commands(name: "hall", pagePort: 8080, addresses: .init(ipv4: "192.168.1.20"))
        names.want(hall)
        #expect(spawner.started.prefix(2).allSatisfy { $0.askedToStop })
        _ = names.step(at: 2000)
        #expect(spawner.running.map(\.arguments) == hall.map(\.arguments))
    }

    @Test("A new address replaces only the address's process; the page's keeps running")
    func addressChanged() {
        let names = supervisor()
        names.want(kitchen)
        _ = names.step(at: 0)
        let moved = NetworkNamePlan.commands(name: "kitchen", pagePort: 8080, addresses: .init(ipv4: "192.168.1.77"))
        names.want(moved)
        _ = names.step(at: 10)
        #expect(spawner.started.map(\.askedToStop) == [true, false, false])
        #expect(spawner.running.map(\.arguments) == moved.reversed().map(\.arguments))
    }

    @Test("No name: every process is stopped, and nothing starts again")
    func stopOnNil() {
        let names = supervisor()
        names.want(kitchen)
        _ = names.step(at: 0)
        names.want(NetworkNamePlan.commands(name: nil, pagePort: 8080, addresses: .init(ipv4: "192.168.1.20")))
        #expect(spawner.started.allSatisfy { $0.askedToStop })
        #expect(names.step(at: 600_000) == nil)
        #expect(spawner.started.count == 2)
        #expect(names.pids.isEmpty)
    }

    @Test("A process that ends by itself starts again after 2 s, then 4 s; not before")
    func restartWithBackoff() {
        let names = supervisor()
        names.want(kitchen)
        _ = names.step(at: 0)
        spawner.started[0].status = 256  // exit 1
        spawner.started[0].output = ["Failed to add address: Local name collision"]
        #expect(names.step(at: 500) == 2500)
        #expect(spawner.started.count == 2)
        #expect(log.all.contains("warning avahi-publish: Failed to add address: Local name collision"))
        #expect(log.all.contains("warning avahi-publish ended by itself; started again in 2 s"))
        #expect(names.step(at: 2499) == 2500)
        #expect(spawner.started.count == 2)
        #expect(names.step(at: 2500) == nil)
        #expect(spawner.started.count == 3)
        #expect(spawner.started[2].arguments == kitchen[0].arguments)
        // Soon gone again: twice the wait.
        spawner.started[2].status = 256
        #expect(names.step(at: 3000) == 7000)
        #expect(names.step(at: 6999) == 7000)
        #expect(spawner.started.count == 3)
        _ = names.step(at: 7000)
        #expect(spawner.started.count == 4)
        // The page's process ran all along.
        #expect(spawner.started[1].status == nil)
    }

    @Test("avahi-publish missing: one warning that names the package, no retries until a reload")
    func programMissing() {
        spawner.missing = true
        let names = supervisor()
        names.want(kitchen)
        #expect(names.step(at: 0) == nil)
        for minute in 1...30 { #expect(names.step(at: Int64(minute) * 60_000) == nil) }
        let warnings = log.all.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("sudo apt install avahi-utils") == true)
        // Installed since, and the daemon reloaded.
        spawner.missing = false
        names.retry()
        _ = names.step(at: 31 * 60_000)
        #expect(spawner.running.count == 2)
    }

    @Test("Stopping all: every process asked to stop, none started again")
    func stopAll() {
        let names = supervisor()
        names.want(kitchen)
        _ = names.step(at: 0)
        names.stopAll(before: monotonicMillis() + 1000)
        #expect(spawner.started.allSatisfy { $0.askedToStop })
        #expect(names.step(at: 600_000) == nil)
        #expect(spawner.started.count == 2)
    }
}

/// Real processes, started with posix_spawn and stopped by their PID. The time limit is for a hang: on 2 cores a
/// test may wait more than a minute for a thread of the pool before it runs, and the limit counts that too.
@Suite("The box's name over mDNS: real child processes", .timeLimit(.minutes(5)))
struct NetworkNameProcessTests {
    /// Whether `pid` names no process at all: ended and reaped (a zombie would still answer kill 0).
    func isGone(_ pid: pid_t) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Polls the supervisor's descriptors until `done()`, at most 20 s.
    func wait(for names: NetworkNameSupervisor, until done: () -> Bool) {
        let deadline = monotonicMillis() + 20_000
        while !done(), monotonicMillis() < deadline {
            var entries = names.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&entries, nfds_t(entries.count), 1000)
            _ = names.step(at: monotonicMillis())
        }
    }

    @Test("/bin/sleep is started, runs with SIGTERM unblocked, and is stopped by its PID and reaped")
    func sleepStartedAndStopped() throws {
        let log = LineRecorder()
        let names = NetworkNameSupervisor(program: "/bin/sleep", spawner: PosixSpawner(), logger: log.logger)
        // The daemon's main thread blocks SIGTERM for its signalfd; the child must not inherit that.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        let command = NetworkNamePlan.Command(arguments: ["60"])
        names.want([command])
        _ = names.step(at: monotonicMillis())
        let pid = try #require(names.pids[command])
        #expect(kill(pid, 0) == 0)
        // posix_spawn returns when the child's execve has replaced its memory (vfork's release), a moment before the
        // kernel gives it the new program's name: until then /proc shows the spawning thread's name.
        var status = SmallFile.text("/proc/\(pid)/status") ?? ""
        let deadline = monotonicMillis() + 10_000
        while !status.contains("Name:\tsleep\n"), monotonicMillis() < deadline {
            usleep(10_000)
            status = SmallFile.text("/proc/\(pid)/status") ?? ""
        }
        #expect(status.contains("Name:\tsleep\n"))
        #expect(status.contains("SigBlk:\t0000000000000000\n"), "\(status)")

        names.want([])
        #expect(isGone(pid))
        #expect(names.pids.isEmpty)
        #expect(log.all.contains("info Stopped publishing"))
    }

    @Test(
        "A child that ends by itself is reaped when its pidfd wakes the poll, what it said is logged, and it starts again"
    )
    func endedChildRestarted() throws {
        let log = LineRecorder()
        let names = NetworkNameSupervisor(program: "/bin/sh", spawner: PosixSpawner(), logger: log.logger)
        let command = NetworkNamePlan.Command(arguments: ["-c", "echo 'Name collision, picking new name' >&2; exit 3"])
        names.want([command])
        let started = monotonicMillis()
        _ = names.step(at: started)
        let first = try #require(names.pids[command])
        wait(for: names) { names.restarts[command] != nil }
        #expect(isGone(first))
        #expect(log.all.contains("warning avahi-publish: Name collision, picking new name"))
        #expect(log.all.contains("warning avahi-publish ended by itself; started again in 2 s"))
        wait(for: names) { names.pids[command].map { $0 != first } ?? false }
        #expect(monotonicMillis() - started >= 2000)
        names.stopAll(before: monotonicMillis() + 1000)
    }

    @Test("A program that is not installed is reported as missing")
    func missingProgram() {
        let result = PosixSpawner().spawn("/nonexistent/avahi-publish", ["-a", "x.local", "10.0.0.1"])
        guard case .failure(.missing) = result else {
            Issue.record("expected .missing, got \(result)")
            return
        }
    }

    @Test("The publisher's thread starts the processes for a name, follows a rename and withdraws them at stop")
    func publisherThread() throws {
        let directory = try TemporaryDirectory()
        let program = directory.file("fake-avahi-publish")
        let started = directory.file("started")
        // A stand-in for avahi-publish: notes its PID and arguments, then waits to be stopped (exec: same PID).
        let script = "#!/bin/sh\necho \"$$ $*\" >>'\(started)'\nexec sleep 60\n"
        #expect(writeFile(script, to: program, mode: 0o755))
        let publisher = NetworkNamePublisher(
            program: program, spawner: PosixSpawner(),
            readAddresses: { .init(ipv4: "192.0.2.7", hostName: "contactbox") }, logger: LineRecorder().logger)

        func lines() -> [String] { (SmallFile.text(started) ?? "").split(separator: "\n").map(String.init) }
        func waitForLines(_ count: Int) {
            let deadline = monotonicMillis() + 20_000
            while lines().count < count, monotonicMillis() < deadline { usleep(20_000) }
        }

        publisher.publish(name: "kitchen", pagePort: 8080)
        waitForLines(2)
        let first = lines()
        #expect(
            first.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }.sorted() == [
                "-f -R -a kitchen.local 192.0.2.7",
                "-f -s -H kitchen.local ContactBox kitchen _http._tcp 8080 path=/",
            ])
        publisher.publish(name: "hall", pagePort: 8080)
        waitForLines(4)
        #expect(lines().count == 4)
        let pids = lines().compactMap { $0.split(separator: " ").first.flatMap { pid_t($0) } }
        #expect(publisher.stop(waitingAtMost: .seconds(10)))
        for pid in pids { #expect(isGone(pid), "\(pid)") }
    }
}

/// A file written whole, with its mode.
private func writeFile(_ text: String, to path: String, mode: mode_t) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    return write(descriptor, bytes, bytes.count) == bytes.count
}

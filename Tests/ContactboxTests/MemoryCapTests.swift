import Foundation
import TestSupport
import Testing

/// The daemon inside the memory cap the systemd unit sets (MemoryHigh=20M): here a hard 20 MB limit, stricter than
/// the unit's, which only throttles at 20 MB. Functional, no timing: it must sync and stop as it does without one.
/// Figures (footprint, peak RSS, wall time) are the benchmarks' (Deploy/bench/capped.sh, Docs/memory.md).
@Suite(
    "The daemon in a 20 MB memory cgroup",
    .enabled(if: MemoryCgroup.unavailable == nil, "skipped: \(MemoryCgroup.unavailable ?? "")"),
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct MemoryCapTests {
    static let contacts = 3000

    @Test("a start-up sync of 3,000 contacts from Radicale completes under the cap, and SIGTERM exits 0")
    func startUpSyncUnderTheCap() throws {
        let work = try Workspace()
        try FileManager.default.createDirectory(atPath: work.path + "/store", withIntermediateDirectories: true)
        let server = try RadicaleServer()
        try server.createAddressBook()
        try server.seedCards(
            (0..<Self.contacts).map { index in
                let uid = String(format: "cap-%05d", index)
                return (
                    uid + ".vcf",
                    card(
                        uid, "Person \(index)", "N:\(index);Person;;;", "EMAIL:person\(index)@example.org",
                        "TEL;TYPE=cell:+41 79 \(100_0000 + index)", "ADR;TYPE=home:;;Street \(index);Town;;\(index);CH",
                        "NOTE:\(String(repeating: "memory ", count: 20))")
                )
            })
        // Radicale reads and caches a seeded book on its first request, slowly on a busy machine: done here, so the
        // daemon's requests find a warm server and its timeouts measure the daemon, not the seeding.
        _ = try? server.request("PROPFIND", server.addressBookURL(), headers: ["Depth: 1"])
        let port = try freeLoopbackPort()
        let config = try work.carddavConfig(
            name: "radicale", url: server.addressBookURL(), username: RadicaleServer.username,
            password: RadicaleServer.password,
            blocks: Workspace.daemonSettings(port: port))

        let group = try MemoryCgroup(name: "daemon", limitBytes: 20 * 1024 * 1024)
        let log = work.path + "/daemon.log"
        let daemon = try ChildProcess(
            path: group.commandPrefix[0],
            arguments: Array(group.commandPrefix.dropFirst()) + [contactboxBinary, "run", "--config", config],
            logPath: log)
        defer { daemon.terminate() }

        var status = ""
        let deadline = Date().addingTimeInterval(300)
        while daemon.isRunning, Date() < deadline {
            status = (try? HTTPTestClient.request(port: port, path: "/api/status"))?.body ?? ""
            if status.contains("\"state\":\"idle\""), status.contains("\"last_result\":\"ok\"") { break }
            if status.contains("\"state\":\"attention\"") { break }
            usleep(200_000)
        }
        let output = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(daemon.isRunning, "the daemon ended under the cap: \(output())")
        #expect(status.contains("\"contacts\":\(Self.contacts)"), "\(status)\n\(output())")
        #expect(status.contains("\"downloaded\":\(Self.contacts)"), "\(status)")

        daemon.terminate(grace: 10)
        #expect(daemon.waitForExit() == 0, "\(output())")
        if let kills = group.oomKills { #expect(kills == 0, "the kernel killed \(kills) processes in the group") }
        let listed = try contactbox(["list", "--db", work.db])
        #expect(listed.stdout.split(separator: "\n").count >= Self.contacts, "\(listed.stderr)")
    }
}

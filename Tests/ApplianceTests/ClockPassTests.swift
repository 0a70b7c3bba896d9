import Config
import Synchronization
import TestSupport
import Testing

@testable import Appliance

/// A certificate "not valid yet" (issue 36): what a box that starts years behind sees of every server until the
/// network sets its clock. A real Radicale serves one of the test CA's, valid from 2090.
@Suite(
    "A pass before the clock is set", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(5)))
struct ClockPassTests {
    @Test("a certificate not valid yet by a clock not set is waiting for the correct time, no red; once set, an error")
    func certificateNotValidYet() throws {
        let certificates = try TestCertificates.shared()
        let server = try RadicaleServer(tls: .init(certificates.notYetValid, authority: certificates.authority))
        let fixture = try PassFixture(contacts: 1)
        let passwordFile = fixture.directory.file("radicale.password")
        SmallTextFile.write(RadicaleServer.password + "\n", to: passwordFile)
        fixture.configuration.remotes = [
            RemoteSettings(
                name: "home",
                kind: .carddav(
                    url: server.addressBookURL(), username: RadicaleServer.username, password: .file(passwordFile),
                    authScheme: .basic, caFile: certificates.authority, caPath: nil, concurrency: 1))
        ]
        let clockSet = Mutex(false)
        let pass = fixture.makePass()
        pass.clockIsSet = { clockSet.withLock { $0 } }
        let waiting = pass.run(SyncRequest(.startup), configuration: fixture.configuration) { false }
        guard case .waitingForTime(let reason) = waiting.state else {
            Issue.record("not waiting for the time: \(waiting.state)")
            return
        }
        #expect(reason.contains("home's certificate is not valid yet by the box's clock, which is not set"))
        #expect(waiting.state.panel == .offline && waiting.state.attentionName == nil)
        #expect(waiting.schedule == .retryLater)
        // With the clock set, the same certificate is the server's fault: the remote's attention, as before.
        clockSet.withLock { $0 = true }
        let failed = pass.run(SyncRequest(.clockSet), configuration: fixture.configuration) { false }
        guard case .needsAttention(.unreachable, let message) = failed.state else {
            Issue.record("not the remote's attention: \(failed.state)")
            return
        }
        #expect(message.contains("is not valid yet"))
    }
}

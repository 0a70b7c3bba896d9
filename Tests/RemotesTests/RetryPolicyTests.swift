import CardDAV
import HTTP
import Sync
import Testing

@testable import Remotes

@Suite("Retries with backoff")
struct RetryPolicyTests {
    final class Recorder: @unchecked Sendable {
        var delays: [Duration] = []
    }

    func policy(_ recorder: Recorder, attempts: Int = 4) -> RetryPolicy {
        var policy = RetryPolicy(
            attempts: attempts, baseDelay: .seconds(1), maxDelay: .seconds(8), maxRetryAfter: .seconds(60))
        policy.sleep = { recorder.delays.append($0) }
        return policy
    }

    @Test("waiting between retries is bounded per run, over every request: a server failing slowly ends the run")
    func waitingBudget() {
        let recorder = Recorder()
        var policy = RetryPolicy(
            attempts: 100, baseDelay: .seconds(1), maxDelay: .seconds(8), maxRetryAfter: .seconds(60),
            maxWaiting: .seconds(30))
        policy.sleep = { recorder.delays.append($0) }
        var calls = 0
        for _ in 0..<3 {
            #expect(throws: RemoteError.self) {
                try policy.run {
                    calls += 1
                    throw RemoteError(.unavailable(retryAfter: .seconds(10)), "busy")
                }
            }
        }
        #expect(recorder.delays.reduce(.zero, +) <= .seconds(30))
        #expect(recorder.delays.count == 3)  // three 10 s waits, then no request waits any more
        #expect(calls == 6)
        let fresh = policy.withFreshBudget()
        #expect(fresh.delay(afterAttempt: 1, retryAfter: .seconds(10)) == .seconds(10))
    }

    @Test("a busy remote is retried with growing, capped, jittered delays, then the error comes out")
    func retriesThenGivesUp() {
        let recorder = Recorder()
        var calls = 0
        #expect(throws: RemoteError.self) {
            try policy(recorder).run {
                calls += 1
                throw RemoteError(.unavailable(retryAfter: nil), "busy")
            }
        }
        #expect(calls == 4)
        #expect(recorder.delays.count == 3)
        for (index, delay) in recorder.delays.enumerated() {
            #expect(delay >= .zero && delay <= min(.seconds(8), .seconds(1 << index)))
        }
    }

    @Test("Retry-After is honoured, and one too long ends the attempt at once")
    func honoursRetryAfter() throws {
        let recorder = Recorder()
        var calls = 0
        let value = try policy(recorder).run { () throws -> Int in
            calls += 1
            if calls == 1 { throw RemoteError(.unavailable(retryAfter: .seconds(5)), "slow down") }
            return 42
        }
        #expect(value == 42)
        #expect(recorder.delays == [.seconds(5)])

        let patient = Recorder()
        #expect(throws: RemoteError.self) {
            try policy(patient).run {
                throw RemoteError(.unavailable(retryAfter: .seconds(3600)), "come back in an hour")
            }
        }
        #expect(patient.delays.isEmpty)
    }

    @Test("errors about one item or the login are not retried")
    func noRetryForOtherErrors() {
        let recorder = Recorder()
        for kind in [RemoteError.Kind.preconditionFailed, .rejected(status: 400), .unauthorized] {
            var calls = 0
            #expect(throws: RemoteError.self) {
                try policy(recorder).run {
                    calls += 1
                    throw RemoteError(kind, "no")
                }
            }
            #expect(calls == 1)
        }
        #expect(recorder.delays.isEmpty)
    }
}

@Suite("What a network failure means for a run")
struct NetworkFailureKindTests {
    @Test(
        "a slow server, an unreachable one and a bad answer are told apart, and only the first two are retried",
        arguments: [
            (HTTPError.Kind.timeout, RemoteError.Kind.tooSlow), (.connect, .unreachable), (.dns, .unreachable),
            (.tls, .unreachable), (.protocolError, .malformed), (.tooLarge, .malformed), (.refusedRedirect, .malformed),
        ])
    func kinds(http: HTTPError.Kind, expected: RemoteError.Kind) {
        let error = RemoteError(CardDAVError(.network(HTTPError(http, "failed")), "failed"))
        #expect(error.kind == expected)
        #expect(error.kind.isTemporary == (expected != .malformed))
    }
}

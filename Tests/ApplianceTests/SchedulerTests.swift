import Testing

@testable import Appliance

@Suite("Scheduler")
struct SchedulerTests {
    func makeScheduler() -> Scheduler {
        Scheduler(interval: .seconds(900), fullCheck: .seconds(86_400), now: 1_000)
    }

    @Test("the first pass is due at start-up, and nothing more until it ends")
    func startup() {
        var scheduler = makeScheduler()
        #expect(scheduler.due(at: 1_000) == SyncRequest(.startup))
        scheduler.passStarted(fullCheck: false, at: 1_000)
        #expect(scheduler.due(at: 10_000_000) == nil)
    }

    @Test("after a pass the next one is due one interval after it ended")
    func interval() {
        var scheduler = makeScheduler()
        scheduler.passStarted(fullCheck: false, at: 1_000)
        scheduler.passFinished(.done, at: 5_000)
        #expect(scheduler.due(at: 5_000 + 899_999) == nil)
        #expect(scheduler.due(at: 5_000 + 900_000) == SyncRequest(.interval))
    }

    @Test("a full check is asked for once a day")
    func fullCheck() {
        var scheduler = makeScheduler()
        scheduler.passStarted(fullCheck: false, at: 1_000)
        scheduler.passFinished(.done, at: 86_400_000)
        let request = scheduler.due(at: 86_400_000 + 900_000)
        #expect(request?.fullCheck == true)
        scheduler.passStarted(fullCheck: true, at: 87_300_000)
        scheduler.passFinished(.done, at: 87_310_000)
        #expect(scheduler.due(at: 87_310_000 + 900_000)?.fullCheck == false)
    }

    @Test("unreachable remotes are retried after 30 s, backing off up to the interval")
    func backoff() {
        var scheduler = makeScheduler()
        var delays: [Int64] = []
        var now: Int64 = 1_000
        for _ in 0..<8 {
            scheduler.passStarted(fullCheck: false, at: now)
            scheduler.passFinished(.retryLater, at: now)
            delays.append(scheduler.nextPass - now)
            #expect(scheduler.due(at: scheduler.nextPass) == SyncRequest(.retry))
            now = scheduler.nextPass
        }
        #expect(delays == [30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000])
        #expect(scheduler.retryDelay == .seconds(900))
        scheduler.passStarted(fullCheck: false, at: now)
        scheduler.passFinished(.done, at: now)
        #expect(scheduler.retryDelay == nil)
        #expect(scheduler.nextPass == now + 900_000)
    }

    @Test("the network coming back brings a waiting retry forward, but not an ordinary pass")
    func networkBack() {
        var scheduler = makeScheduler()
        scheduler.passStarted(fullCheck: false, at: 1_000)
        scheduler.passFinished(.done, at: 1_000)
        scheduler.networkCameBack(at: 2_000)
        #expect(scheduler.nextPass == 901_000)
        scheduler.passStarted(fullCheck: false, at: 901_000)
        scheduler.passFinished(.retryLater, at: 901_000)
        scheduler.passFinished(.retryLater, at: 931_000)  // now waiting 60 s
        scheduler.networkCameBack(at: 932_000)
        #expect(scheduler.due(at: 934_000) == SyncRequest(.networkBack))
    }

    @Test("a reload with a shorter interval makes the next pass due sooner")
    func reconfigure() {
        var scheduler = makeScheduler()
        scheduler.passStarted(fullCheck: false, at: 1_000)
        scheduler.passFinished(.done, at: 1_000)
        scheduler.reconfigure(interval: .seconds(60), fullCheck: .seconds(3_600), now: 2_000)
        #expect(scheduler.nextPass == 62_000)
        #expect(scheduler.nextFullCheck == 3_602_000)
    }
}

@Suite("Sync requests")
struct SyncRequestTests {
    @Test("requests that arrive during a pass merge into one that does what each asked")
    func merging() {
        let merged = SyncRequest(.button).merged(with: SyncRequest(.longPress, confirmDeletions: true))
            .merged(with: SyncRequest(.fullCheck))
        #expect(merged.triggers == [.button, .longPress, .fullCheck])
        #expect(merged.confirmDeletions)
        #expect(merged.fullCheck)
        #expect(merged.reasons == "full-check, button, long-press")
    }
}

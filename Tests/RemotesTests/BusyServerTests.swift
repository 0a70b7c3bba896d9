import HTTP
import Logging
import Sync
import Testing
import VCard

@testable import CardDAV
@testable import Remotes

/// A server that takes one write at a time: of the writes that overlap, the first goes through and the others are
/// answered 423 Locked, as Xandikos does while it commits a write to git.
final class LockingTransport: DAVTransport {
    private(set) var concurrencySeen: [Int] = []
    /// How many writes each batch sent.
    private(set) var batchSizes: [Int] = []
    private(set) var stored: Set<String> = []
    var retryAfter: String?
    /// The status of a write refused for overlapping another.
    var refusal = 423

    func perform(_ request: HTTPRequest, onBody: (UnsafeRawBufferPointer) throws -> Void) throws -> HTTPResponse {
        HTTPResponse(status: 500, headers: [], url: request.url)
    }

    func sendAll(
        _ requests: [HTTPRequest], maxBody: Int, maxConcurrent: Int?,
        completion: (Int, Result<(HTTPResponse, [UInt8]), HTTPError>) throws -> Void
    ) throws {
        let width = maxConcurrent ?? 4
        concurrencySeen.append(width)
        batchSizes.append(requests.count)
        for (index, request) in requests.enumerated() {
            let inFlightFirst = index % width == 0
            var headers = [HTTPHeader("ETag", "\"\(stored.count)\"")]
            if let retryAfter { headers.append(HTTPHeader("Retry-After", retryAfter)) }
            if inFlightFirst { stored.insert(request.url) }
            let status = inFlightFirst ? 201 : refusal
            try completion(index, .success((HTTPResponse(status: status, headers: headers, url: request.url), [])))
        }
    }
}

@Suite("Writes to a server that is busy")
struct BusyServerTests {
    func makeBook(_ transport: LockingTransport, concurrency: Int = 4, retry: RetryPolicy = .immediate())
        -> CardDAVAddressBook
    {
        let client = CardDAVClient(transport: transport, logger: Logger(label: "test"))
        let info = AddressBookInfo(
            url: "http://127.0.0.1:1/book/", displayName: nil, supportsSyncCollection: true,
            supportedVersions: ["3.0"])
        return CardDAVAddressBook(
            name: "busy", book: info, client: client, retry: retry, concurrency: concurrency, maxConcurrency: 4)
    }

    @Test("423 Locked among our own writes: a first round of four, the rest one at a time from then on")
    func lockedWritesLand() throws {
        let transport = LockingTransport()
        let recorder = RetryPolicyTests.Recorder()
        var retry = RetryPolicy.immediate()
        retry.sleep = { recorder.delays.append($0) }
        let book = makeBook(transport, retry: retry)
        let writes = try (0..<70).map { RemoteWrite.create(try makeVdirCard(uid: "u\($0)", name: "Person \($0)")) }
        let results = book.perform(writes)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(transport.stored.count == 70)
        #expect(transport.concurrencySeen == [4, 1])
        // Four sent together (three refused), then the three and the other 66 one at a time: 73 PUTs, not the
        // 122 of sending all 70 four at a time first.
        #expect(transport.batchSizes == [4, 69])
        #expect(recorder.delays.isEmpty)
        #expect(book.locksPerWrite)
        #expect(book.learnedWriteConcurrency == CardDAVAddressBook.oneAtATime)

        // One at a time for good: not grown in this run, nor in the next, which starts from what was learned.
        let more = try (70..<80).map { RemoteWrite.create(try makeVdirCard(uid: "u\($0)", name: "Person \($0)")) }
        #expect(book.perform(more).allSatisfy { (try? $0.get()) != nil })
        let next = makeBook(transport, concurrency: book.learnedWriteConcurrency ?? 4, retry: retry)
        let last = try (80..<90).map { RemoteWrite.create(try makeVdirCard(uid: "u\($0)", name: "Person \($0)")) }
        #expect(next.perform(last).allSatisfy { (try? $0.get()) != nil })
        #expect(next.learnedWriteConcurrency == CardDAVAddressBook.oneAtATime)
        #expect(transport.concurrencySeen == [4, 1, 1, 1])
        #expect(transport.stored.count == 90)
    }

    @Test("429 while busy: the concurrency halves with a backoff per round, stays down for the run, then grows")
    func rateLimitedWritesBackOff() throws {
        let transport = LockingTransport()
        transport.refusal = 429
        let recorder = RetryPolicyTests.Recorder()
        var retry = RetryPolicy.immediate()
        retry.sleep = { recorder.delays.append($0) }
        let book = makeBook(transport, retry: retry)
        let writes = try (0..<70).map { RemoteWrite.create(try makeVdirCard(uid: "r\($0)", name: "Rate \($0)")) }
        #expect(book.perform(writes).allSatisfy { (try? $0.get()) != nil })
        #expect(transport.concurrencySeen == [4, 2, 1])
        #expect(recorder.delays.count == 2)
        #expect(book.learnedWriteConcurrency == 1)
        #expect(!book.locksPerWrite)

        // Not grown again in this run (each growth was refused again); the next run grows it by one per batch
        // taken whole.
        let more = try (70..<80).map { RemoteWrite.create(try makeVdirCard(uid: "r\($0)", name: "Rate \($0)")) }
        #expect(book.perform(more).allSatisfy { (try? $0.get()) != nil })
        #expect(book.learnedWriteConcurrency == 1)
        let next = makeBook(transport, concurrency: book.learnedWriteConcurrency ?? 4, retry: retry)
        let last = try (80..<90).map { RemoteWrite.create(try makeVdirCard(uid: "r\($0)", name: "Rate \($0)")) }
        #expect(next.perform(last).allSatisfy { (try? $0.get()) != nil })
        #expect(next.learnedWriteConcurrency == 2)
        #expect(transport.concurrencySeen == [4, 2, 1, 1, 1])
    }

    @Test("a Retry-After longer than the policy allows ends the writes left as unavailable, with what was asked")
    func longRetryAfterStops() throws {
        let transport = LockingTransport()
        transport.retryAfter = "3600"
        let book = makeBook(transport, concurrency: 2)
        let results = book.perform(
            try (0..<4).map { RemoteWrite.create(try makeVdirCard(uid: "v\($0)", name: "V \($0)")) })
        let failures = results.compactMap { result -> RemoteError? in
            if case .failure(let error) = result { error } else { nil }
        }
        // Two sent (one refused), two not sent: the server asked for an hour's rest.
        #expect(transport.batchSizes == [2])
        #expect(failures.count == 3)
        #expect(
            failures.allSatisfy { $0.kind == .unavailable(retryAfter: .seconds(3600)) && $0.message.contains("3600 s") }
        )
    }
}

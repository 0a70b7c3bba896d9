import CardDAV
import FuzzSupport

/// One input: a multistatus body, fed the way `CardDAVClient.multistatus` feeds it, chunk by chunk as curl hands
/// them over. The first two bytes choose where the body is cut (a tag, a UTF-8 sequence or an entity split across
/// two chunks), the third how small the later chunks are (0: the rest at once); the remaining bytes are the body.
///
/// Invariant: how a body arrives in chunks changes nothing. The same responses, summary and verdict come out as
/// when it is fed whole; otherwise a card could appear or vanish with the network's timing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultistatus(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard count >= 3 else { return 0 }
    let body = UnsafeRawBufferPointer(rebasing: input[3...])
    let cut = (Int(input[0]) << 8 | Int(input[1])) % (body.count + 1)
    let step = Int(input[2])
    let whole = parse(body, cuts: [body.count])
    var cuts: [Int] = [cut]
    if step > 0 { cuts += stride(from: cut + step, to: body.count, by: step) }
    cuts.append(body.count)
    let chunked = parse(body, cuts: cuts)
    invariant(whole == chunked, "chunking changed the result at \(cuts.prefix(3)):\n\(whole)\n---\n\(chunked)")
    return 0
}

/// What a client learns from a body: the responses, then the summary or that the body was refused.
private struct Outcome: Equatable {
    var responses: [MultistatusResponse] = []
    var summary: MultistatusSummary?
    var refused = false
}

private func parse(_ body: UnsafeRawBufferPointer, cuts: [Int]) -> Outcome {
    var outcome = Outcome()
    let parser = MultistatusParser { response in
        _ = response.properties  // what the listing reads of each response
        outcome.responses.append(response)
    }
    var from = 0
    do {
        for to in cuts where to >= from {
            try parser.feed(UnsafeRawBufferPointer(rebasing: body[from..<to]))
            from = to
        }
        outcome.summary = try parser.finish()
    } catch {
        outcome.refused = true
    }
    return outcome
}

import FuzzSupport
import VCard

/// One input: bytes as `contactbox import` and the sync read them (`CardReader`, including its lenient paths:
/// UTF-16 input, declared charsets, quoted-printable, folding), then what the sync does with each result: a card
/// read is hashed, named, converted and written; one that does not read is carried opaque (`Card+Opaque.swift`).
///
/// Invariants checked, each a promise the store relies on (a violation aborts, which libFuzzer reports as a crash):
/// - a written card reads back as one card, with no error;
/// - writing is stable: write(read(write(card))) == write(card), so a card synced twice is not changed twice;
/// - the content hash survives the round trip, so a card does not look edited after being stored and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVCard(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var reader = CardReader(bytes: bytes)
    var read = 0
    var refused = false
    // A reader always advances; the bound only keeps a bug in that from looking like a timeout.
    while read <= count, let result = reader.next() {
        read += 1
        switch result {
        case .success(let parsed): checkRoundTrip(parsed.card)
        case .failure: refused = true
        }
    }
    if refused { carryOpaque(bytes) }
    return 0
}

private func checkRoundTrip(_ card: Card) {
    _ = card.displayName
    _ = card.converted(toVersion: "3.0").serialized()
    _ = card.splittingNicknameLists()
    _ = card.addingDerivedFN()
    let text = card.serialized()
    var again = CardReader(text: text)
    guard case .success(let reread)? = again.next() else {
        violated("a written card does not read back:\n\(text)")
    }
    invariant(again.next() == nil, "a written card reads back as more than one:\n\(text)")
    let rewritten = reread.card.serialized()
    invariant(rewritten == text, "writing is not stable:\n\(text)\n---\n\(rewritten)")
    invariant(reread.card.contentHash == card.contentHash, "the content hash changed in a round trip:\n\(text)")
}

/// What the sync does with an item the reader refuses: keep its text, find a UID in it.
private func carryOpaque(_ bytes: [UInt8]) {
    let text = Card.opaqueText(bytes)
    let uid = Card.uidLine(in: text) ?? Card.stableUID(forLocation: "/fuzz.vcf")
    let card = Card(opaque: text, uid: uid)
    invariant(card.serialized() == text, "an opaque card is not kept exactly")
    _ = card.contentHash
    // What the store does with the text it holds for such a card: read it again, or keep it opaque.
    _ = Card.stored(text, uid: uid).serialized()
}

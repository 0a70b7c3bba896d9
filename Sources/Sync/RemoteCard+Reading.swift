import VCard

extension RemoteCard {
    /// Reads one fetched item, a spooled one a chunk at a time: its card, or, for an item no reader understands,
    /// the item carried opaque (`Card+Opaque.swift`) with why, up to `CardReader.Limits.maxOpaqueBytes` (an opaque
    /// item is held whole); a larger one, or a card over the card limit, is refused, naming it and its size.
    /// `asBytes`: the item's bytes as fetched, which need not be UTF-8 (an opaque item keeps them, and the reader's
    /// repairs are noted); else text a multistatus carried, UTF-8 once read.
    public static func read(
        _ text: CardText, href: String, etag: String, from book: String, asBytes: Bool = false
    ) -> Result<RemoteCard, RemoteError> {
        var reader = CardReader(text: text)
        let why: String
        switch reader.next() {
        case .success(let parsed):
            var card = RemoteCard(href: href, etag: etag, parsed: parsed)
            if asBytes {
                card.notes += parsed.repairs.filter { !parsed.warnings.contains($0) && !$0.hasPrefix("added UID") }
            }
            return .success(card)
        case .failure(let error) where error.code == .cardTooLarge:
            return .failure(refused(href, book: book, "\(error.message) (\(text.count) bytes)"))
        case .failure(let error): why = "\(error)"
        case nil: why = "no card in the item"
        }
        guard text.count <= CardReader.Limits.maxOpaqueBytes else {
            return .failure(
                refused(href, book: book, "\(why), and at \(text.count) bytes too large to carry as it is"))
        }
        let opaque = text.withBytes { asBytes ? Card.opaqueText(Array($0)) : String(decoding: $0, as: UTF8.self) }
        return .success(RemoteCard(opaque: opaque, href: href, etag: etag, why: why))
    }

    private static func refused(_ href: String, book: String, _ why: String) -> RemoteError {
        RemoteError(.rejected(status: 0), "\(book): \(href): \(why); refused")
    }

    /// Reads one item's text held in memory (tests): as `read`; an item that cannot be read is carried opaque.
    public init(reading text: String, href: String, etag: String) {
        switch Self.read(.bytes(Array(text.utf8)), href: href, etag: etag, from: "") {
        case .success(let card): self = card
        case .failure(let error): self.init(opaque: text, href: href, etag: etag, why: error.message)
        }
    }
}

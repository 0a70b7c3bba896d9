import ContactStore
import VCard

/// The stored card, parsed only when a decision needs it (uploads, conflicts).
final class LazyCard {
    let stored: StoredContact?
    private var parsed: Card??

    init(_ stored: StoredContact?) {
        self.stored = stored
    }

    var card: Card? {
        if let parsed { return parsed }
        let card = stored.map { Card.stored($0.text, uid: $0.uid) }
        parsed = .some(card)
        return card
    }
}

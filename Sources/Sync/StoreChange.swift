import ContactStore
import VCard

/// One change to the store that a step leads to. A chunk's changes are collected while its remote writes run and
/// applied together in one transaction afterwards (`SyncSession.commit`), so that a chunk is in the store whole or
/// not at all.
enum StoreChange {
    /// The card as the contact's new version; the version it replaces goes to history with `reason`.
    case saveContact(Card, hash: String, reason: String)
    /// The contact deleted; the store keeps it in history with `reason`.
    case deleteContact(uid: String, reason: String)
    /// A version that is not kept as the contact (a conflict's loser) goes to history.
    case keepInHistory(uid: String, text: CardText, hash: String, reason: String)
    /// What both sides now hold; `created` when this run created the remote's item.
    case recordBase(uid: String, entry: RemoteEntry, hash: String, created: Bool)
    case forgetBase(uid: String)
    /// The remote refused this version of the card (`hash`) for `reason`: not sent again until it changes.
    case recordRefusal(uid: String, hash: String, reason: String)
    case clearRefusal(uid: String)
    /// The remote stored `remoteHash` for the version `hash` it was sent, damaged as `damage` says.
    case recordDamage(uid: String, hash: String, remoteHash: String, damage: String)
    case clearDamage(uid: String)

    func apply(to store: ContactStore, remoteID: Int64, runID: Int64?) throws {
        switch self {
        case .saveContact(let card, let hash, let reason):
            try store.upsert(card, hash: hash, reason: reason, remoteID: remoteID, runID: runID)
        case .deleteContact(let uid, let reason):
            try store.delete(uid: uid, reason: reason, remoteID: remoteID, runID: runID)
        case .keepInHistory(let uid, let text, let hash, let reason):
            try store.archive(uid: uid, text: text, hash: hash, reason: reason, remoteID: remoteID, runID: runID)
        case .recordBase(let uid, let entry, let hash, let created):
            // Another contact recorded at this place lost it: the place is this contact's now.
            if let other = try store.remoteItem(remoteID: remoteID, href: entry.href), other.uid != uid {
                try store.deleteRemoteItem(remoteID: remoteID, uid: other.uid)
            }
            try store.upsertRemoteItem(
                RemoteItemState(remoteID: remoteID, uid: uid, href: entry.href, etag: entry.etag, hash: hash),
                created: created)
        case .forgetBase(let uid):
            try store.deleteRemoteItem(remoteID: remoteID, uid: uid)
        case .recordRefusal(let uid, let hash, let reason):
            try store.recordRefusal(remoteID: remoteID, uid: uid, hash: hash, reason: reason)
        case .clearRefusal(let uid):
            try store.clearRefusal(remoteID: remoteID, uid: uid)
        case .recordDamage(let uid, let hash, let remoteHash, let damage):
            try store.recordDamage(remoteID: remoteID, uid: uid, hash: hash, remoteHash: remoteHash, damage: damage)
        case .clearDamage(let uid):
            try store.clearDamage(remoteID: remoteID, uid: uid)
        }
    }
}

import ContactStore
import VCard

/// One thing to do for one item, as the `Planner` decided it (`SyncSession+Plan.swift`), carried out by the
/// executor (`SyncSession+Execute.swift`). The shape of vdirsyncer's actions: a step is a plain value holding all
/// that carrying it out needs (the card, where it goes, the ETag the remote must still have, the hash to record as
/// the new base, the copy to keep in history), so that a refused card can be sent again and a 412 re-planned
/// without a closure remembering how.
enum SyncStep {
    /// Store the remote's version; the version it replaces goes to history with `reason`. `isNew` when the store
    /// has no live contact with this UID (counted as downloaded, otherwise as updated).
    case download(RemoteCard, reason: String, isNew: Bool)
    /// Both sides hold the same content: record the remote's place and version as the new base.
    case markSynced(RemoteCard)
    /// The remote holds its damaged copy of the base's version at this place and ETag (`damaged_items`): record
    /// them, the base's hash unchanged.
    case keepBase(RemoteItemState)
    /// The remote deleted the item: delete the contact (the store keeps it in history) and forget the base.
    case deleteLocal(uid: String)
    /// Both sides deleted the item: forget the base.
    case forget(uid: String)
    /// The remote's version lost a conflict: a copy goes to history before the local version replaces it.
    case keepInHistory(RemoteCard, reason: String)
    /// A write to the remote; what follows depends on its result.
    case remote(RemoteStep)
}

/// A step that writes to the remote, with what its result needs: on success the new base, on failure what to
/// remember or re-plan.
enum RemoteStep {
    /// Send the local version.
    case upload(Upload)
    /// Delete the remote's item of contact `uid` if it is still at `etag`, then forget the base.
    case delete(uid: String, href: String, etag: String)
    /// Delete a second copy of a synced card: another href with the same content.
    case deleteDuplicate(href: String, etag: String)

    /// The request this step makes.
    var write: RemoteWrite {
        switch self {
        case .upload(let upload): upload.write
        case .delete(_, let href, let etag), .deleteDuplicate(let href, let etag): .delete(href: href, etag: etag)
        }
    }
}

/// The local version of contact `uid` on its way to the remote.
struct Upload {
    var uid: String
    /// What is sent: the stored card in the remote's vCard version (with a derived FN when `addedFN`).
    var card: Card
    /// The remote's item and the ETag it must still have (`If-Match`); nil to create one (`If-None-Match: *`).
    var target: RemoteEntry?
    /// The stored version's hash: the new base once sent, and the version a refusal is remembered for.
    var hash: String
    /// The remote refused an earlier version: a success clears that.
    var hadRefusal: Bool
    /// `card` carries an FN made from its own N, ORG, EMAIL or TEL after the remote refused it without one; a
    /// success stores that card too, so that every side holds the same.
    var addedFN = false
    /// The `REV` the card goes with where it has none and the remote keeps only cards with one (`WriteForm.rev`):
    /// the time of the contact's last change in the store.
    var revision: String
    /// The form the card is sent in (`WriteForm`): what the remote is known to keep intact, or what is tried after
    /// the remote damaged it.
    var form: Set<String> = []
    /// What the remote made of an earlier sending of this upload in this run (the read-back), nil at first.
    var damage: String?
    /// An earlier sending in this run created the remote's item: this one replaces it, and it counts as created.
    var createdItem = false

    var write: RemoteWrite {
        guard let target else { return .create(card) }
        return .update(href: target.href, etag: target.etag, card: card)
    }
}
